import CaptureKitCore
import Foundation

/// A decoded picture, upright — what `UIImage` is to iOS capture code: a still or a cover to
/// look at, encode to JPEG or PNG, and write to a file.
///
/// ```swift
/// let jpeg = try Data(contentsOf: url)
/// let image = try CaptureImage(data: jpeg)                       // UIImage(data:)
/// let png = image.pngData()                                      // UIImage.pngData()
/// let small = image.jpegData(compressionQuality: 0.8)            // UIImage.jpegData(compressionQuality:)
/// try image.write(to: URL(fileURLWithPath: "cover.png"))         // format from the extension
/// ```
///
/// Decoded pictures are BGRA (as ``AssetImageGenerator``'s), at their upright size: a JPEG's
/// EXIF orientation is applied to the pixels, so the image never needs an `imageOrientation`.
/// An image made from a ``PixelBuffer`` keeps that buffer as it is.
public struct CaptureImage: Sendable {
    /// The pixels, upright (`UIImage.cgImage`).
    public let pixelBuffer: PixelBuffer

    /// The size in pixels (`UIImage.size`, which is in points; here one point is one pixel).
    public var size: VideoDimensions { VideoDimensions(width: pixelBuffer.width, height: pixelBuffer.height) }
    /// The width in pixels.
    public var width: Int { pixelBuffer.width }
    /// The height in pixels.
    public var height: Int { pixelBuffer.height }

    /// The largest picture decoded (1 GiB of BGRA): a crafted header cannot make the decoder
    /// allocate more.
    private static let maximumPixelCount = 1 << 28

    /// An image of `pixelBuffer` as it is, in any pixel format (`UIImage(cgImage:)`).
    public init(pixelBuffer: PixelBuffer) {
        self.pixelBuffer = pixelBuffer
    }

    /// The picture of a JPEG, PNG or HEIF/AVIF file's bytes (`UIImage(data:)`), upright: a
    /// JPEG's EXIF orientation and a HEIF's `irot`/`imir` are applied. Throws `.unsupportedFile`
    /// for data that is none of those and `.corruptFile` for a picture that does not decode.
    public init(data: Data) throws(CaptureError) {
        try self.init(data: data, path: nil)
    }

    /// The picture a sample buffer carries, upright: the JPEG of a still that
    /// ``CaptureStillImageOutput`` delivered (or of a Motion-JPEG camera's frame) decoded with
    /// its EXIF orientation applied, else the buffer's frame as it is — what
    /// `UIImage(data: AVCaptureStillImageOutput.jpegStillImageNSDataRepresentation(buffer))`
    /// made. `.invalidArgument` for audio.
    public init(sampleBuffer: SampleBuffer) throws(CaptureError) {
        if let compressed = sampleBuffer.compressedFrame, compressed.codec == .jpeg {
            pixelBuffer = try Self.decodeJPEG(compressed.bytes, path: nil)
        } else if let frame = sampleBuffer.pixelBuffer {
            pixelBuffer = frame
        } else {
            throw .invalidArgument("an audio sample buffer holds no picture")
        }
    }

    /// As ``init(data:)``, naming `path` in errors.
    package init(data: Data, path: String?) throws(CaptureError) {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if data.starts(with: jpeg) {
            let outcome = data.withUnsafeBytes { raw in
                Result { () throws(CaptureError) in try Self.decodeJPEG(raw, path: path) }
            }
            pixelBuffer = try outcome.get()
        } else if data.starts(with: png) {
            pixelBuffer = try PNGDecoder.decode(data, path: path)
        } else if HEIFImage.isHEIF(data) {
            do throws(CaptureError) {
                pixelBuffer = try HEIFImage(data: data).bgra()
            } catch {
                throw Self.naming(path, in: error)
            }
        } else {
            throw CaptureError(.unsupportedFile, "not a JPEG, PNG or HEIF image", path: path)
        }
    }

    /// A JPEG picture as BGRA, turned by its EXIF orientation.
    private static func decodeJPEG(_ bytes: UnsafeRawBufferPointer, path: String?) throws(CaptureError) -> PixelBuffer {
        do throws(CaptureError) {
            let decoder = try JPEGDecoder(damage: .corruptFile, subject: "JPEG data")
            let stored = try decoder.size(of: bytes)
            guard stored.width > 0, stored.height > 0, stored.pixelCount <= maximumPixelCount else {
                throw CaptureError(.unsupportedFile, "a \(stored) JPEG picture is larger than CaptureImage decodes")
            }
            let frame = try PixelBuffer(width: stored.width, height: stored.height, pixelFormat: .bgra)
            try decoder.decode(bytes, into: frame)
            let orientation = EXIFReader.orientation(ofJPEG: bytes)
            return try FrameRotation.turn(frame, by: orientation)
        } catch {
            throw naming(path, in: error)
        }
    }

    /// `error` with `path` as its file, unless it names one already.
    private static func naming(_ path: String?, in error: CaptureError) -> CaptureError {
        var named = error
        if named.path == nil { named.path = path }
        return named
    }

    /// The image as a JPEG file (`UIImage.jpegData(compressionQuality:)`): `compressionQuality`
    /// 0 (smallest) … 1 (best), clamped, as UIKit's; libjpeg-turbo, no EXIF (the pixels are
    /// upright). Nil only when the picture cannot be encoded; ``write(to:compressionQuality:overwrite:)``
    /// throws the reason.
    public func jpegData(compressionQuality: Double) -> Data? {
        try? jpeg(compressionQuality: compressionQuality)
    }

    /// The image as a PNG file (`UIImage.pngData()`): FFmpeg's PNG encoder, 8-bit RGB (alpha is
    /// not kept), lossless. Nil only when the picture cannot be encoded.
    public func pngData() -> Data? {
        try? png()
    }

    /// ``jpegData(compressionQuality:)`` with the reason it failed.
    package func jpeg(compressionQuality: Double) throws(CaptureError) -> Data {
        try JPEGEncoder.encode(pixelBuffer, quality: Self.encoderQuality(compressionQuality), metadata: nil)
    }

    /// ``pngData()`` with the reason it failed.
    package func png() throws(CaptureError) -> Data {
        try PNGEncoder.encode(pixelBuffer, metadata: nil)
    }

    /// UIKit's 0...1 (clamped) onto the encoders' 1...100.
    package static func encoderQuality(_ compressionQuality: Double) -> Int {
        Int((min(1, max(0, compressionQuality)) * 99).rounded()) + 1
    }
}
