import CaptureKitCore
import CaptureKitMedia
import Dispatch
import Foundation
import Synchronization

/// Pictures of a media file at chosen times — thumbnails, posters, frames for a timeline
/// (`AVAssetImageGenerator`). Works on any file FFmpeg reads: movies in any container, photos
/// (JPEG, PNG, … give their single image) and audio files with cover art; and on HEIF/AVIF
/// photos, which libheif reads (upright: their rotation is applied as they decode).
///
/// ```swift
/// let movie = try MediaAsset(url: URL(fileURLWithPath: "door.mov"))
/// let generator = AssetImageGenerator(asset: movie)
/// generator.maximumSize = MediaAsset.Size(width: 100, height: 0)     // 100 px wide, aspect kept
/// generator.appliesPreferredTrackTransform = true                     // portrait stays portrait
/// let (image, actualTime) = try await generator.image(at: MediaTime(value: 3, timescale: 1))
/// let (jpeg, _) = try generator.jpegData(at: .zero)                  // an encoded thumbnail
/// let cover = try generator.copyCGImage(at: .zero, actualTime: nil)  // a CaptureImage
/// ```
///
/// **Images** are ``PixelBuffer``s in ``PixelFormat/bgra`` (8-bit B, G, R, A; alpha 255 unless the
/// file has alpha), full-range RGB converted with the frame's own colour matrix and range, at
/// the scaled size: `maximumSize` fits the picture inside it (aspect kept, never enlarged),
/// after the transform when `appliesPreferredTrackTransform` is set.
///
/// **Times** are on the asset's timeline (zero is the file's start, as for `ffmpeg -ss`). The
/// generator seeks to the keyframe at or before the time (`av_seek_frame`,
/// `AVSEEK_FLAG_BACKWARD`), decodes forward (`avcodec_send_packet`, `avcodec_receive_frame`)
/// and returns the first frame within `[time − requestedTimeToleranceBefore, time +
/// requestedTimeToleranceAfter]`; when no frame lies in that window, the frame on screen at
/// the time. So the default infinite tolerances give the keyframe at or before the time
/// (cheapest: one frame decoded), and zero tolerances the exact frame shown at the time. The
/// actual time returned is the frame's presentation time. Negative times give the first frame;
/// times past the end (and `.positiveInfinity`) **clamp to the end** rather than fail: the
/// last frame with zero tolerances, the last keyframe with the default ones. Photos (and the
/// cover art of audio files) give their image at time zero for every time.
///
/// **Errors** (`CaptureError`, never a trap): `.fileError` for a missing or unreadable file,
/// `.unsupportedFile` for one that is not media or has no picture (audio only), `.corruptFile`
/// for damaged data (a truncated movie, a picture that does not decode), `.invalidArgument`
/// for an invalid or indefinite time, a negative or invalid tolerance, or a negative
/// `maximumSize`.
///
/// The generator is `Sendable`: its settings may be changed from any thread, and calls may
/// overlap (each decodes with a file handle of its own; one is kept open between calls, so a
/// series of thumbnails opens the file once).
public final class AssetImageGenerator: Sendable {
    /// The asset the pictures come from.
    public let asset: MediaAsset

    private struct Settings {
        var maximumSize = MediaAsset.Size(width: 0, height: 0)
        var appliesPreferredTrackTransform = false
        var toleranceBefore = MediaTime.positiveInfinity
        var toleranceAfter = MediaTime.positiveInfinity
    }

    /// A decoder for the asset's file and the scaler that goes with it.
    private final class Engine: Sendable {
        let seeker: any AssetFrameSource
        let scaler: AssetImageScaler

        init(asset: MediaAsset) throws(CaptureError) {
            seeker = try AssetFrameSeeker.source(url: asset.fileURL, isPhoto: asset.kind == .photo)
            scaler = AssetImageScaler(path: asset.fileURL.path)
        }
    }

    private let settings = Mutex(Settings())
    /// The engine kept between calls (nil while a call uses it or after a failure).
    private let idleEngine = Mutex<Engine?>(nil)
    private static let queue = DispatchQueue(label: "CaptureKit.AssetImageGenerator", qos: .userInitiated, attributes: .concurrent)

    /// A generator for `asset`. Nothing is opened until the first picture is asked for.
    public init(asset: MediaAsset) {
        self.asset = asset
    }

    /// The largest picture wanted, in pixels; `(0, 0)` (the default) means no limit. A zero in
    /// one dimension keeps the aspect ratio: `(100, 0)` gives pictures 100 pixels wide and as
    /// high as the aspect ratio says. The picture fits inside, aspect kept, never enlarged.
    /// Measured after the transform when ``appliesPreferredTrackTransform`` is set.
    public var maximumSize: MediaAsset.Size {
        get { settings.withLock { $0.maximumSize } }
        set { settings.withLock { $0.maximumSize = newValue } }
    }

    /// Whether pictures are turned (and mirrored) upright by the asset's
    /// ``MediaAsset/preferredTransform`` — a phone's portrait movie comes out in portrait.
    /// False by default, as in AVFoundation: the pixels as stored.
    public var appliesPreferredTrackTransform: Bool {
        get { settings.withLock { $0.appliesPreferredTrackTransform } }
        set { settings.withLock { $0.appliesPreferredTrackTransform = newValue } }
    }

    /// How much earlier than the requested time the picture may be. `.positiveInfinity` (the
    /// default) allows the nearest keyframe before; `.zero` with a zero
    /// ``requestedTimeToleranceAfter`` asks for the exact frame.
    public var requestedTimeToleranceBefore: MediaTime {
        get { settings.withLock { $0.toleranceBefore } }
        set { settings.withLock { $0.toleranceBefore = newValue } }
    }

    /// How much later than the requested time the picture may be; `.positiveInfinity` by default.
    public var requestedTimeToleranceAfter: MediaTime {
        get { settings.withLock { $0.toleranceAfter } }
        set { settings.withLock { $0.toleranceAfter = newValue } }
    }

    /// The picture at `time` and the presentation time of the frame it shows, decoded on a
    /// thread of the generator's (never the caller's).
    public func image(at time: MediaTime) async throws(CaptureError) -> (image: PixelBuffer, actualTime: MediaTime) {
        let result: Result<(image: PixelBuffer, actualTime: MediaTime), CaptureError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Result { () throws(CaptureError) in try self.copyImage(at: time) })
            }
        }
        return try result.get()
    }

    /// The picture at `time` and the presentation time of the frame it shows, on the calling
    /// thread (`copyCGImageAtTime:actualTime:error:`).
    public func copyImage(at time: MediaTime) throws(CaptureError) -> (image: PixelBuffer, actualTime: MediaTime) {
        let settings = self.settings.withLock { $0 }
        let request = try Self.request(time, settings: settings, duration: asset.duration)
        let kept = idleEngine.withLock { idle -> Engine? in
            let engine = idle
            idle = nil
            return engine
        }
        let engine: Engine
        if let kept {
            engine = kept
        } else {
            engine = try Engine(asset: asset)
        }
        let transform = settings.appliesPreferredTrackTransform ? asset.preferredTransform : .identity
        let (frame, actualTime) = try engine.seeker.frame(for: request)
        let stored = MediaAsset.Size(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let shown = Self.fittedSize(transform.applied(to: stored), maximum: settings.maximumSize)
        let scaled = transform.applied(to: shown)
        let upright = try engine.scaler.bgra(from: frame, width: scaled.width, height: scaled.height)
        // The decoded frames go back to the decoder before another call may take the engine.
        engine.seeker.release()
        let image = try FrameRotation.apply(transform, to: upright)
        idleEngine.withLock { idle in
            if idle == nil { idle = engine }
        }
        return (image, actualTime)
    }

    /// The picture at `time` as a ``CaptureImage``, on the calling thread, in AVFoundation's
    /// shape (`copyCGImage(at:actualTime:)`): the presentation time of the frame it shows goes
    /// to `actualTime` when given. Ported code that wrapped the `CGImage` in a `UIImage` uses
    /// the result as it is.
    public func copyCGImage(at time: MediaTime, actualTime: UnsafeMutablePointer<MediaTime>?) throws(CaptureError) -> CaptureImage {
        let (image, shownTime) = try copyImage(at: time)
        actualTime?.pointee = shownTime
        return CaptureImage(pixelBuffer: image)
    }

    /// The picture at `time` as a JPEG file (`quality` 1...100; libjpeg-turbo's `tjCompress2`,
    /// 4:2:0, no EXIF: the pixels are already upright when the transform is applied).
    public func jpegData(at time: MediaTime, quality: Int = 85) throws(CaptureError) -> (data: Data, actualTime: MediaTime) {
        guard (1...100).contains(quality) else { throw .invalidArgument("JPEG quality \(quality) is out of range (1...100)") }
        let (image, actualTime) = try copyImage(at: time)
        return (try JPEGEncoder.encode(image, quality: quality, metadata: nil), actualTime)
    }

    /// The picture at `time` as a PNG file (FFmpeg's PNG encoder through `avcodec_send_frame` /
    /// `avcodec_receive_packet`, 8-bit RGB, lossless).
    public func pngData(at time: MediaTime) throws(CaptureError) -> (data: Data, actualTime: MediaTime) {
        let (image, actualTime) = try copyImage(at: time)
        return (try PNGEncoder.encode(image, metadata: nil), actualTime)
    }

    /// Checks the settings and makes the seeker's request.
    private static func request(_ time: MediaTime, settings: Settings, duration: MediaTime) throws(CaptureError) -> AssetFrameSeeker.Request {
        guard time.isValid, !time.isIndefinite else {
            throw .invalidArgument("cannot make a picture at an \(time.isValid ? "indefinite" : "invalid") time")
        }
        for (name, tolerance) in [("before", settings.toleranceBefore), ("after", settings.toleranceAfter)] {
            guard tolerance.isNumeric ? tolerance >= .zero : tolerance.isPositiveInfinity else {
                throw .invalidArgument("requestedTimeTolerance\(name.capitalized) must be zero or more (or .positiveInfinity), not \(tolerance)")
            }
        }
        guard settings.maximumSize.width >= 0, settings.maximumSize.height >= 0 else {
            throw .invalidArgument("maximumSize \(settings.maximumSize) has a negative dimension")
        }
        var clamped = time
        if time.isNegativeInfinity {
            clamped = .zero
        } else if time.isPositiveInfinity {
            // Past the end: the seek lands on the last keyframe and decoding runs to the last frame.
            clamped = duration.isNumeric && duration > .zero ? duration : MediaTime(value: 1 << 40, timescale: 1)
        }
        return AssetFrameSeeker.Request(time: clamped, toleranceBefore: settings.toleranceBefore, toleranceAfter: settings.toleranceAfter)
    }

    /// `size` fitted inside `maximum` (zero dimensions unconstrained), aspect kept, never
    /// enlarged, at least 1×1.
    package static func fittedSize(_ size: MediaAsset.Size, maximum: MediaAsset.Size) -> MediaAsset.Size {
        guard size.width > 0, size.height > 0 else { return size }
        var scale = 1.0
        if maximum.width > 0 { scale = min(scale, Double(maximum.width) / Double(size.width)) }
        if maximum.height > 0 { scale = min(scale, Double(maximum.height) / Double(size.height)) }
        guard scale < 1 else { return size }
        return MediaAsset.Size(width: min(size.width, max(1, Int((Double(size.width) * scale).rounded()))),
                               height: min(size.height, max(1, Int((Double(size.height) * scale).rounded()))))
    }
}
