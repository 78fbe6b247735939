import CaptureKitCore
internal import CHeif
import Foundation

/// HEIF files (HEVC stills) from camera frames with libheif and its built-in x265 encoder. The
/// YUV planes go in as they are, with an `nclx` colour profile saying they are limited-range
/// BT.601, so nothing is converted; orientation is written as `irot`/`imir` boxes (which HEIF
/// readers must apply) and repeated in the EXIF block.
package enum HEIFEncoder {
    /// libheif wants one heif_init before encoders are looked up; runs once.
    /// libheif is opened on first use (``loadSharedLibrary(_:_:)``): false when it is not installed.
    private static let initialized: Bool = ck_heif_load(nil, 0) == 0 && heif_init(nil).code == heif_error_Ok

    /// Whether libheif has an HEVC encoder here (libheif built with x265, or its plugin).
    /// Wraps heif_have_encoder_for_format.
    package static var isAvailable: Bool {
        initialized && heif_have_encoder_for_format(heif_compression_HEVC) != 0
    }

    /// `frame` as a HEIF file at `quality` (1...100), its pixels turned by `pixelOrientation`,
    /// marked to be shown with `displayOrientation`, with `metadata` as its Exif item. Wraps
    /// heif_context_encode_image and heif_context_write.
    package static func encode(_ frame: PixelBuffer, quality: Int, applying pixelOrientation: EXIFOrientation = .up,
                               displayOrientation: EXIFOrientation = .up, metadata: EXIFMetadata?) throws(CaptureError) -> Data {
        try loadSharedLibrary("libheif", ck_heif_load)
        guard isAvailable else {
            throw CaptureError(.unsupportedFormat, "libheif has no HEVC encoder on this machine (install libheif with x265)",
                               operation: "heif_have_encoder_for_format")
        }
        guard (1...100).contains(quality) else { throw .invalidArgument("HEIF quality \(quality) is out of range (1...100)") }
        var yuv = frame.pixelFormat == .yuv420p ? frame
            : try PixelConverter.shared.convert(frame, to: .yuv420p, width: frame.width, height: frame.height)
        if pixelOrientation != .up {
            let swaps = pixelOrientation.swapsDimensions
            let turned = try PixelBuffer(width: swaps ? yuv.height : yuv.width, height: swaps ? yuv.width : yuv.height, pixelFormat: .yuv420p)
            PixelTransform.turn(yuv, into: turned, by: pixelOrientation)
            yuv = turned
        }

        guard let context = heif_context_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate a HEIF context", operation: "heif_context_alloc") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "heif_context_get_encoder_for_format")
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)), "heif_encoder_set_lossy_quality")
        // libheif's x265 default is "slow" (0.7 s for a 1080p still here); "medium", x265's own
        // default, takes 0.5 s for a smaller file at the same quality setting.
        try check(heif_encoder_set_parameter_string(encoder, "preset", "medium"), "heif_encoder_set_parameter_string(preset)")

        var image: OpaquePointer?
        try check(heif_image_create(Int32(yuv.width), Int32(yuv.height), heif_colorspace_YCbCr, heif_chroma_420, &image), "heif_image_create")
        defer { heif_image_release(image) }
        for (plane, channel) in [heif_channel_Y, heif_channel_Cb, heif_channel_Cr].enumerated() {
            let width = yuv.pixelFormat.minimumBytesPerRow(plane: plane, width: yuv.width)
            let height = yuv.rowCount(ofPlane: plane)
            try check(heif_image_add_plane(image, channel, Int32(width), Int32(height), 8), "heif_image_add_plane")
            var stride: Int32 = 0
            guard let target = heif_image_get_plane(image, channel, &stride) else {
                throw CaptureError(.internalError, "libheif gave no plane to write", operation: "heif_image_get_plane")
            }
            let sourceStride = yuv.bytesPerRow(ofPlane: plane)
            yuv.withUnsafeBytes(ofPlane: plane) { source in
                for row in 0..<height {
                    (target + row * Int(stride)).update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * sourceStride,
                                                         count: width)
                }
            }
        }
        guard let nclx = heif_nclx_color_profile_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate a colour profile", operation: "heif_nclx_color_profile_alloc") }
        defer { heif_nclx_color_profile_free(nclx) }
        // The camera's planes as they are: BT.601 matrix, limited range, sRGB primaries/transfer.
        nclx.pointee.color_primaries = heif_color_primaries_ITU_R_BT_709_5
        nclx.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 0
        try check(heif_image_set_nclx_color_profile(image, nclx), "heif_image_set_nclx_color_profile")

        guard let options = heif_encoding_options_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate HEIF options", operation: "heif_encoding_options_alloc") }
        defer { heif_encoding_options_free(options) }
        options.pointee.output_nclx_profile = nclx
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(displayOrientation.rawValue))
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, options, &handle), "heif_context_encode_image")
        defer { heif_image_handle_release(handle) }
        if let metadata {
            let tiff = try EXIFWriter.tiff(for: metadata)
            let added = tiff.withUnsafeBytes { raw in
                heif_context_add_exif_metadata(context, handle, raw.baseAddress, Int32(raw.count))
            }
            try check(added, "heif_context_add_exif_metadata")
        }
        return try write(context)
    }

    /// Collects heif_context_write's output in memory.
    private static func write(_ context: OpaquePointer) throws(CaptureError) -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, bytes, size, userData in
            let sink = Unmanaged<Sink>.fromOpaque(userData!).takeUnretainedValue()
            if let bytes, size > 0 { sink.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: HEIFEncoder.okMessage)
        }
        try withExtendedLifetime(sink) { () throws(CaptureError) in
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), "heif_context_write")
        }
        return sink.data
    }

    /// The message libheif's write callback returns on success: a C string that lives forever.
    nonisolated(unsafe) private static let okMessage: UnsafePointer<CChar> = UnsafeRawPointer(("Success" as StaticString).utf8Start)
        .assumingMemoryBound(to: CChar.self)

    private static func check(_ error: heif_error, _ operation: String) throws(CaptureError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
        throw CaptureError(.conversionFailed, "HEIF encoding failed: \(message)", operation: operation)
    }
}
