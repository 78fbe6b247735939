import Foundation
import Synchronization

/// What one photo request asks for (`AVCapturePhotoSettings`): file format, quality, largest
/// size, flash, and whether orientation is burned into the pixels. Each settings value has its
/// own ``uniqueID`` and can be used for one request only; make a fresh one, or a copy with a
/// new identifier with ``init(from:)``, for the next.
///
/// ```swift
/// var settings = CapturePhotoSettings(fileType: .jpeg)
/// settings.quality = 0.95
/// settings.maxPhotoDimensions = PhotoDimensions(width: 1920, height: 1080)
/// let photo = try await photoOutput.capturePhoto(with: settings)
/// ```
public struct CapturePhotoSettings: Sendable, Hashable {
    private static let nextID = Atomic<Int64>(1)

    /// Identifies the request in every delegate call and in the resolved settings.
    public let uniqueID: Int64
    /// The file format (``CapturePhotoOutput/availablePhotoFileTypes`` lists what works here).
    public var fileType: PhotoFileType
    /// Compression quality in 0...1 (`AVVideoQualityKey`) for JPEG and HEIF; 0.9 by default.
    /// PNG is lossless and ignores it.
    public var quality: Double = 0.9
    /// The largest photo wanted. Nil (the default) takes the photo at the size the camera
    /// streams. Larger than that, up to the device's largest format, switches the camera to
    /// that format for the shot (see ``CapturePhotoOutput``); smaller scales the frame down.
    public var maxPhotoDimensions: PhotoDimensions?
    /// The flash (``CapturePhotoOutput/supportedFlashModes`` lists what the device can do).
    public var flashMode: CaptureDevice.FlashMode = .off
    /// When false (the default) the connection's rotation and mirroring are written as the
    /// EXIF orientation and the pixels stay as the sensor delivered them; when true the pixels
    /// are turned and the orientation written is `.up`.
    public var appliesOrientationToPixels = false
    /// Speed against quality for this photo (`photoQualityPrioritization`), up to the output's
    /// ``CapturePhotoOutput/maxPhotoQualityPrioritization``. Every level takes the same frame
    /// (no Linux camera fuses several), so it changes nothing in the photo today.
    public var photoQualityPrioritization: CapturePhotoOutput.QualityPrioritization = .balanced
    /// Where a Live Photo's movie would go (`livePhotoMovieFileURL`). No Linux camera takes
    /// Live Photos: a request that sets it fails with `.notSupported`.
    public var livePhotoMovieFileURL: URL?
    /// The preview image's pixel format, or nil for no preview image.
    public var previewPhotoPixelFormat: PixelFormat?
    /// The largest preview image wanted; nil for at most 256 × 256.
    public var previewPhotoDimensions: PhotoDimensions?
    /// Whether the photo waits for the next frame the camera delivers rather than taking the
    /// newest one already delivered (zero shutter lag, ``CapturePhotoOutput/isZeroShutterLagEnabled``):
    /// for a photo after a change the newest frame cannot show yet (a light switched on, a
    /// focus or exposure change). False by default.
    public var waitsForNextFrame = false
    /// The Bayer format of a raw photo (`rawPhotoPixelFormatType`): one of
    /// ``CapturePhotoOutput/availableRawPhotoPixelFormatTypes``, the format the camera streams.
    /// Set by ``init(rawPixelFormat:)``; nil for a processed photo.
    public var rawPhotoPixelFormat: PixelFormat?
    /// With a raw format, the file type of a processed photo made from the same frame
    /// (`processedFileType`): the request then delivers two photos, the DNG first. Set by
    /// ``init(rawPixelFormat:processedFileType:)``; nil for one photo.
    public var processedFileType: PhotoFileType?

    /// Settings for a photo in `fileType` (JPEG by default) with a new ``uniqueID``.
    public init(fileType: PhotoFileType = .jpeg) {
        uniqueID = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.fileType = fileType
    }

    /// Settings for a raw photo (`init(rawPixelFormatType:)`): the sensor's samples in
    /// `rawPixelFormat` (a Bayer format the camera streams, see
    /// ``CapturePhotoOutput/availableRawPhotoPixelFormatTypes``) written as they are to a DNG
    /// file. The photo is the frame's full size (``maxPhotoDimensions`` cannot shrink it) and
    /// its orientation is written as the file's `Orientation` tag, never applied to the samples.
    ///
    /// ```swift
    /// guard let raw = photoOutput.availableRawPhotoPixelFormatTypes.first else { return }
    /// let photo = try await photoOutput.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: raw))
    /// try photo.fileDataRepresentation()!.write(to: URL(fileURLWithPath: "photo.dng"))
    /// ```
    public init(rawPixelFormat: PixelFormat) {
        self.init(fileType: .dng)
        rawPhotoPixelFormat = rawPixelFormat
    }

    /// Settings for a raw photo and a processed one from the same frame
    /// (`init(rawPixelFormatType:processedFormat:)`): the delegate's `didFinishProcessingPhoto`
    /// is called twice, with the DNG and then with the `processedFileType` photo (JPEG, PNG or
    /// HEIF, one of ``CapturePhotoOutput/availablePhotoFileTypes``), before `didFinishCapture`;
    /// ``CapturePhotoOutput/capturePhotos(with:)`` returns both. The processed photo has the raw
    /// one's geometry: the frame's full size, the orientation as a tag.
    ///
    /// ```swift
    /// guard let raw = photoOutput.availableRawPhotoPixelFormatTypes.first else { return }
    /// let photos = try await photoOutput.capturePhotos(with: CapturePhotoSettings(rawPixelFormat: raw, processedFileType: .jpeg))
    /// try photos[0].fileDataRepresentation()!.write(to: URL(fileURLWithPath: "photo.dng"))
    /// try photos[1].fileDataRepresentation()!.write(to: URL(fileURLWithPath: "photo.jpg"))
    /// ```
    public init(rawPixelFormat: PixelFormat, processedFileType: PhotoFileType) {
        self.init(rawPixelFormat: rawPixelFormat)
        self.processedFileType = processedFileType
    }

    /// A copy of `settings` with a new ``uniqueID`` (`init(from:)`), for the next request.
    public init(from settings: CapturePhotoSettings) {
        self.init(fileType: settings.fileType)
        quality = settings.quality
        maxPhotoDimensions = settings.maxPhotoDimensions
        flashMode = settings.flashMode
        appliesOrientationToPixels = settings.appliesOrientationToPixels
        photoQualityPrioritization = settings.photoQualityPrioritization
        waitsForNextFrame = settings.waitsForNextFrame
        livePhotoMovieFileURL = settings.livePhotoMovieFileURL
        previewPhotoPixelFormat = settings.previewPhotoPixelFormat
        previewPhotoDimensions = settings.previewPhotoDimensions
        rawPhotoPixelFormat = settings.rawPhotoPixelFormat
        processedFileType = settings.processedFileType
    }

    /// Settings from AVFoundation's dictionary (`init(format:)`): ``VideoCodecKey`` picks the
    /// file type (`.hevc` is HEIF, `.jpeg` JPEG); other keys are ignored. A codec no photo can
    /// be written in keeps JPEG and logs a warning.
    public init(format: [String: any Sendable]) {
        self.init()
        switch format[VideoCodecKey] as? VideoCodecType {
        case .hevc?: fileType = .heif
        case .mjpeg?, nil: fileType = .jpeg
        case let codec?: CaptureLog.emit(.warning, "capturekit", "photos cannot be \(codec.rawValue); taking JPEG")
        }
    }

    /// The pixel formats a preview image can have (`availablePreviewPhotoPixelFormatTypes`).
    public var availablePreviewPhotoPixelFormatTypes: [PixelFormat] { [.bgra] }

    /// The preview image as AVFoundation's dictionary (`previewPhotoFormat`): the
    /// ``PixelBufferPixelFormatTypeKey`` (a ``PixelFormat``), and optionally
    /// ``PixelBufferWidthKey`` and ``PixelBufferHeightKey``. The same as
    /// ``previewPhotoPixelFormat`` and ``previewPhotoDimensions``.
    public var previewPhotoFormat: [String: any Sendable]? {
        get {
            guard let previewPhotoPixelFormat else { return nil }
            var format: [String: any Sendable] = [PixelBufferPixelFormatTypeKey: previewPhotoPixelFormat]
            if let previewPhotoDimensions {
                format[PixelBufferWidthKey] = previewPhotoDimensions.width
                format[PixelBufferHeightKey] = previewPhotoDimensions.height
            }
            return format
        }
        set {
            previewPhotoPixelFormat = newValue?[PixelBufferPixelFormatTypeKey] as? PixelFormat
            if let width = newValue?[PixelBufferWidthKey] as? Int, let height = newValue?[PixelBufferHeightKey] as? Int {
                previewPhotoDimensions = PhotoDimensions(width: width, height: height)
            } else {
                previewPhotoDimensions = nil
            }
        }
    }
}
