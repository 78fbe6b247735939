import CaptureKitCore
import CaptureKitMedia
import Foundation

/// A photo or movie file and what it holds (`AVAsset`, and the `PHAsset` a photo library hands
/// back): kind, size, duration, tracks, the transform that shows it upright, and its tags.
///
/// ```swift
/// let clip = try MediaAsset(url: URL(fileURLWithPath: "door.mov"))
/// clip.duration.seconds          // 12.4
/// clip.naturalSize               // 1920x1080, as stored
/// clip.presentationSize          // 1080x1920 for a portrait recording
/// ```
public struct MediaAsset: Sendable, Hashable, Identifiable {
    /// What the asset is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A still image.
        case photo
        /// A movie (with video, audio or both).
        case video
    }

    /// One track of the asset (`AVAssetTrack`).
    public struct Track: Sendable, Hashable {
        /// Video or audio.
        public var mediaType: MediaType
        /// FFmpeg's codec name ("h264", "aac", "mjpeg").
        public var codec: String
        /// Frame size as stored, for video.
        public var naturalSize: Size?
        /// Samples per second, for audio.
        public var sampleRate: Int?
        /// Channels, for audio.
        public var channelCount: Int?
        /// How long the track plays.
        public var duration: MediaTime
        /// The average frame rate, for video.
        public var nominalFrameRate: Double?
    }

    /// A size in pixels.
    public typealias Size = VideoDimensions

    /// The library's identifier for the asset; for an asset made from a file, the file's path.
    public let id: String
    /// Photo or video.
    public let kind: Kind
    /// Where the asset's file is.
    public let fileURL: URL
    /// When it was captured (the file's creation tag, else its modification time).
    public let creationDate: Date
    /// How long it plays (`.zero` for photos).
    public let duration: MediaTime
    /// The first video track's (or the photo's) size as stored, before the transform.
    public let naturalSize: Size
    /// The turn (and mirror) that shows the picture upright: the display matrix of a movie.
    public let preferredTransform: VideoTransform
    /// The tracks.
    public let tracks: [Track]
    /// The container's tags (title, creation_time, location, …).
    public let metadata: [String: String]

    /// The size the picture is shown at: ``naturalSize`` turned by ``preferredTransform``.
    public var presentationSize: Size { preferredTransform.applied(to: naturalSize) }

    /// Inspects the file at `url`: HEIF and AVIF photos (known by their `ftyp` brands, not
    /// their extension) with libheif, everything else with FFmpeg (any container or image
    /// format it reads). Throws `.fileError` for a missing file, `.unsupportedFile`/`.corruptFile`
    /// for one that is not media.
    ///
    /// A HEIF photo (which FFmpeg 5.1 cannot open) is a `.photo` of one video track whose codec
    /// is `hevc` (`av1` for AVIF), its size the upright picture's: libheif applies the file's
    /// rotation and mirror (`irot`/`imir`) as it decodes, and exposes them no other way, so
    /// ``preferredTransform`` is the identity and ``AssetImageGenerator`` shows what libheif
    /// does. Its ``creationDate`` is the EXIF `DateTimeOriginal` (with sub-seconds and offset),
    /// else the file's modification time; ``metadata`` is empty.
    public init(url: URL, id: String? = nil) throws(CaptureError) {
        let id = id ?? url.standardizedFileURL.path
        if HEIFImage.isHEIF(url) {
            try self.init(heif: HEIFImage(url: url), url: url, id: id)
        } else {
            try self.init(probe: MediaFileInfo(contentsOf: url, countingFrames: false), url: url, id: id)
        }
    }

    /// An asset from FFmpeg's probe of its file.
    private init(probe info: MediaFileInfo, url: URL, id: String) {
        let video = info.videoStream
        let isPhoto = video.map { Self.isStill($0, container: info.container) } ?? false
        kind = isPhoto ? .photo : .video
        self.id = id
        fileURL = url
        metadata = info.metadata
        duration = isPhoto ? .zero : (info.duration ?? video?.duration ?? info.audioStream?.duration ?? .zero)
        naturalSize = Size(width: video?.width ?? 0, height: video?.height ?? 0)
        preferredTransform = VideoTransform(rotation: (360 - (video?.rotation ?? 0)) % 360, isMirrored: false)
        tracks = info.streams.compactMap { stream in
            let mediaType: MediaType
            switch stream.kind {
            case .video where !stream.isAttachedPicture: mediaType = .video
            case .audio: mediaType = .audio
            default: return nil
            }
            return Track(mediaType: mediaType, codec: stream.codec,
                         naturalSize: stream.width.flatMap { width in stream.height.map { Size(width: width, height: $0) } },
                         sampleRate: stream.sampleRate, channelCount: stream.channelCount,
                         duration: stream.duration ?? info.duration ?? .zero, nominalFrameRate: stream.frameRate)
        }
        creationDate = Self.creationDate(metadata: info.metadata, url: url)
    }

    /// A single-image container (JPEG, PNG, HEIF…) rather than a movie.
    private static func isStill(_ stream: MediaStreamInfo, container: String) -> Bool {
        container.hasSuffix("_pipe") || container == "image2" || container.contains("heif") && (stream.frameCount ?? 1) <= 1
    }

    /// The `creation_time` tag, else the file's modification time.
    private static func creationDate(metadata: [String: String], url: URL) -> Date {
        if let tag = metadata["creation_time"] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: tag) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: tag) { return date }
        }
        return modificationDate(of: url)
    }

    /// When the file at `url` was last written (now, when it cannot be read).
    static func modificationDate(of url: URL) -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return attributes?[.modificationDate] as? Date ?? Date()
    }
}

extension VideoTransform {
    /// `size` after the transform (width and height swap for quarter turns).
    public func applied(to size: MediaAsset.Size) -> MediaAsset.Size {
        rotation % 180 == 0 ? size : MediaAsset.Size(width: size.height, height: size.width)
    }
}
