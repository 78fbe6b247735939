import CaptureKitCore
internal import CTIFF
import Foundation

/// DNG files from raw Bayer frames, by libtiff: the sensor's samples exactly as the camera
/// delivered them (8 bits, or 10, 12 or 16 in 16-bit words), with the colour filter's layout
/// (`CFAPattern`), the white level (the depth's largest value), the orientation and who made it. Raw converters (dcraw, LibRaw, darktable,
/// RawTherapee, Lightroom) demosaic and colour-correct them.
///
/// A camera that delivers raw frames through V4L2 or a virtual camera says nothing of its
/// colour response, so the file declares the sensor's colours to be linear sRGB's
/// (`ColorMatrix1` from CIE XYZ under D65) with a neutral white balance (`AsShotNeutral`
/// 1, 1, 1).
package enum DNGEncoder {
    /// Whether libtiff can be loaded here.
    package static let isAvailable: Bool = ck_tiff_load(nil, 0) == 0

    /// `frame` (a ``PixelFormat/isBayer`` format) as a DNG file, with `metadata`'s orientation,
    /// make, model, software and capture time. Wraps TIFFClientOpenExt, TIFFSetField and
    /// TIFFWriteScanline.
    package static func encode(_ frame: PixelBuffer, metadata: EXIFMetadata) throws(CaptureError) -> Data {
        guard let pattern = frame.pixelFormat.bayerPattern, let depth = frame.pixelFormat.bayerBitDepth else {
            throw CaptureError(.unsupportedFormat, "a DNG file holds raw Bayer samples, not \(frame.pixelFormat) frames")
        }
        try loadSharedLibrary("libtiff", ck_tiff_load)
        let dateTime = metadata.exifDateFields?.dateTime
        let uniqueModel = [metadata.make, metadata.model].compactMap { $0 }.joined(separator: " ")
        var message = [CChar](repeating: 0, count: 512)
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = frame.withUnsafeBytes(ofPlane: 0) { samples in
            withOptionalCString(metadata.make) { make in
                withOptionalCString(metadata.model) { model in
                    withOptionalCString(uniqueModel.isEmpty ? "CaptureKit camera" : uniqueModel) { unique in
                        withOptionalCString(metadata.software) { software in
                            withOptionalCString(dateTime) { date in
                                var image = ck_dng_image(
                                    width: Int32(frame.width), height: Int32(frame.height),
                                    bits_per_sample: Int32(frame.pixelFormat.planeLayouts[0].bytesPerGroup * 8),
                                    samples: samples.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                    bytes_per_row: frame.bytesPerRow(ofPlane: 0),
                                    cfa_pattern: (pattern[0], pattern[1], pattern[2], pattern[3]),
                                    white_level: UInt32((1 << depth) - 1), orientation: UInt16(metadata.orientation.rawValue),
                                    make: make, model: model, unique_camera_model: unique, software: software, date_time: date)
                                return ck_dng_encode(&image, &bytes, &count, &message, message.count)
                            }
                        }
                    }
                }
            }
        }
        guard status == 0, let bytes else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(.conversionFailed, "cannot write a \(frame.width)x\(frame.height) DNG: \(reason)", operation: "TIFFWriteDirectory")
        }
        defer { ck_dng_free(bytes) }
        return Data(bytes: bytes, count: count)
    }

    private static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}
