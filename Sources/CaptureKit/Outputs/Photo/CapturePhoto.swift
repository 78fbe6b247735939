import Foundation
import Synchronization

/// One captured photo (`AVCapturePhoto`): the encoded file, the frame it was made from, its
/// EXIF metadata, when it was captured and with which settings.
///
/// ```swift
/// let photo = try await photoOutput.capturePhoto(with: CapturePhotoSettings())
/// try photo.fileDataRepresentation()!.write(to: URL(fileURLWithPath: "photo.jpg"))
/// ```
public final class CapturePhoto: Sendable {
    /// The request's settings as resolved.
    public let resolvedSettings: CaptureResolvedPhotoSettings
    /// When the frame was captured, on the session clock (`CLOCK_MONOTONIC`), as the frame's
    /// presentation time; `.invalid` for a failed capture.
    public let timestamp: MediaTime
    /// The device's index of the frame the photo was made from (its ``SampleBuffer/sequenceNumber``);
    /// nil for a failed capture. For the virtual camera, `TestPattern.render(frameIndex:)`
    /// with this index reproduces the frame.
    public let sourceSequenceNumber: UInt64?
    /// The EXIF metadata written into the file (`metadata`).
    public let metadata: EXIFMetadata
    private let fileData: Data?
    /// The frame as the device delivered it. Held by reference: no copy is made.
    let source: SampleBuffer?
    /// The photo's size before any pixel turn: the frame's, or what it was scaled down to.
    let frameDimensions: PhotoDimensions
    /// The preview image once made (``previewPixelBuffer``).
    private let preview = Mutex<PixelBuffer?>(nil)

    init(resolvedSettings: CaptureResolvedPhotoSettings, source: SampleBuffer?, frameDimensions: PhotoDimensions,
         metadata: EXIFMetadata, fileData: Data?) {
        self.resolvedSettings = resolvedSettings
        self.source = source
        self.frameDimensions = frameDimensions
        timestamp = source?.presentationTimeStamp ?? .invalid
        sourceSequenceNumber = source?.sequenceNumber
        self.metadata = metadata
        self.fileData = fileData
    }

    /// The photo's file, ready to write (`fileDataRepresentation()`): JPEG, PNG, HEIF or DNG
    /// as asked; nil when the capture failed.
    public func fileDataRepresentation() -> Data? { fileData }

    /// The photo decoded upright (its EXIF orientation or HEIF rotation applied), as
    /// `UIImage(data: photo.fileDataRepresentation()!)` made it on iOS; for a raw photo, its
    /// frame demosaiced by libswscale (as the other outputs see it) and not turned.
    /// `.invalidState` for a failed capture, which has no file.
    public func image() throws(CaptureError) -> CaptureImage {
        guard let fileData else { throw .invalidState("a failed capture has no picture") }
        if isRawPhoto, let source {
            guard let frame = try source.converted(to: VideoTarget(pixelFormat: .bgra)).pixelBuffer else {
                throw .internalError("a raw photo's frame did not convert")
            }
            return CaptureImage(pixelBuffer: frame)
        }
        return try CaptureImage(data: fileData)
    }

    /// The file format.
    public var fileType: PhotoFileType { resolvedSettings.fileType }

    /// Whether the file holds the sensor's raw samples (DNG) rather than a picture (`isRawPhoto`).
    public var isRawPhoto: Bool { fileType.isRaw }

    /// The uncompressed picture (`pixelBuffer`): the camera's frame in its own pixel format,
    /// scaled to the photo's size when the photo is smaller than the frame, and not turned (its
    /// orientation is in ``metadata``). The frame itself when no scaling was needed; nil for a
    /// failed capture.
    public var pixelBuffer: PixelBuffer? {
        guard let source, let frame = source.pixelBuffer else { return nil }
        let size = frameDimensions
        if size.width == frame.width && size.height == frame.height { return frame }
        return try? source.converted(to: VideoTarget(width: size.width, height: size.height)).pixelBuffer
    }

    /// The preview image the settings asked for (`previewPixelBuffer`), made from the frame on
    /// first use at ``CaptureResolvedPhotoSettings/previewDimensions``, not turned; nil when
    /// none was asked for or the capture failed.
    public var previewPixelBuffer: PixelBuffer? {
        let size = resolvedSettings.previewDimensions
        guard size != .zero, let source, let format = resolvedSettings.previewPixelFormat else { return nil }
        return preview.withLock { preview in
            if preview == nil {
                preview = try? source.converted(to: VideoTarget(pixelFormat: format, width: size.width, height: size.height)).pixelBuffer
            }
            return preview
        }
    }
}
