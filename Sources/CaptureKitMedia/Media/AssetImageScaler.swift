import CaptureKitCore
package import CFFmpeg

/// Turns one decoded frame of any layout FFmpeg decodes (8- or 10-bit YUV, full-range `yuvj`,
/// RGB, palettes, grey) into a new BGRA ``PixelBuffer`` at the requested size, in one libswscale
/// pass: wraps `sws_getCachedContext`, `sws_setColorspaceDetails` and `sws_scale`.
///
/// Bicubic, and the frame's own colour matrix and range (BT.601 / BT.709, limited / full), as
/// the `ffmpeg` command's scale filter does, so a thumbnail matches what ffmpeg decodes.
/// Used by one thread at a time; keeps its scaler context between frames.
package final class AssetImageScaler: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg scaler used by one thread at a time.
    package let path: String
    private var context: OpaquePointer?

    package init(path: String) {
        self.path = path
    }

    deinit { sws_freeContext(context) }

    /// `frame` as BGRA at `width`×`height` (opaque alpha unless the source has alpha).
    package func bgra(from frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) throws(CaptureError) -> PixelBuffer {
        let sourceWidth = frame.pointee.width, sourceHeight = frame.pointee.height
        guard sourceWidth > 0, sourceHeight > 0 else {
            throw CaptureError(.corruptFile, "the decoder returned an empty frame", path: path)
        }
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        let target = try PixelBuffer(width: width, height: height, pixelFormat: .bgra)
        guard let scaler = sws_getCachedContext(context, sourceWidth, sourceHeight, source, Int32(width), Int32(height),
                                                AV_PIX_FMT_BGRA, SWS_BICUBIC, nil, nil, nil) else {
            let name = av_get_pix_fmt_name(source).map { String(cString: $0) } ?? "unknown"
            throw CaptureError(.unsupportedFile, "cannot convert the file's \(name) frames to BGRA",
                               operation: "sws_getCachedContext", path: path)
        }
        context = scaler
        applyColorDetails(of: frame, format: source, to: scaler)
        let planes = FileFrameConverter.planes(of: frame)
        let sourceData: [UnsafePointer<UInt8>?] = planes.map { $0.data.map { UnsafePointer($0) } }
        let sourceStrides = planes.map { Int32(clamping: $0.stride) }
        let rows = target.withUnsafeMutableBytes(ofPlane: 0) { bytes -> Int32 in
            let targetData: [UnsafeMutablePointer<UInt8>?] = [bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            let targetStrides: [Int32] = [Int32(target.bytesPerRow(ofPlane: 0)), 0, 0, 0]
            return sws_scale(scaler, sourceData, sourceStrides, 0, sourceHeight, targetData, targetStrides)
        }
        guard rows > 0 else {
            throw CaptureError(.conversionFailed, "cannot scale a decoded \(sourceWidth)x\(sourceHeight) frame to \(width)x\(height) BGRA",
                               operation: "sws_scale", path: path)
        }
        return target
    }

    /// YUV sources: the frame's colour matrix (`sws_getCoefficients` of its `colorspace`, the
    /// default BT.601 when unspecified) and range (full for `yuvj` formats and
    /// `AVCOL_RANGE_JPEG`).
    private func applyColorDetails(of frame: UnsafeMutablePointer<AVFrame>, format: AVPixelFormat, to scaler: OpaquePointer) {
        guard let descriptor = av_pix_fmt_desc_get(format), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0 else { return }
        var inverse: UnsafeMutablePointer<Int32>?, table: UnsafeMutablePointer<Int32>?
        var sourceRange: Int32 = 0, targetRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(scaler, &inverse, &sourceRange, &table, &targetRange, &brightness, &contrast, &saturation) >= 0,
              let table else { return }
        let range: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : frame.pointee.color_range == AVCOL_RANGE_MPEG ? 0 : sourceRange
        let coefficients = sws_getCoefficients(Int32(bitPattern: frame.pointee.colorspace.rawValue))
        _ = sws_setColorspaceDetails(scaler, coefficients, range, table, targetRange, brightness, contrast, saturation)
    }
}
