/// Where the planes of a raw frame lie in a driver buffer, from the driver's `bytesperline`:
/// chroma planes of single-buffer formats follow the luma plane, with strides derived from
/// the luma stride as the V4L2 format definitions specify.
struct V4L2FrameLayout: Sendable, Equatable {
    /// What frames are delivered in (a CSI-2 packed code's unpacked Bayer format).
    let pixelFormat: PixelFormat
    /// For a CSI-2 packed Bayer code, the bits of each sample: `planes` then describe the
    /// packed rows, which are unpacked into `pixelFormat` frames, never lent.
    let packedBits: Int?
    let width: Int
    let height: Int
    let planes: [PixelBuffer.Plane]

    /// The layout of frames in `format`, or `.unsupportedFormat` for codes CaptureKit cannot read raw.
    init(_ format: V4L2PixFormat) throws(CaptureError) {
        guard let pixelFormat = format.fourCC.pixelFormat, !format.fourCC.isJPEG else {
            throw CaptureError(.unsupportedFormat, "V4L2 format \(format.fourCC) has no raw layout CaptureKit reads")
        }
        guard format.width > 0, format.height > 0 else { throw .invalidArgument("V4L2 frame size \(format.width)x\(format.height) is empty") }
        self.pixelFormat = pixelFormat
        width = format.width
        height = format.height
        packedBits = format.fourCC.packedBayerBits
        if let bits = format.fourCC.packedBayerBits {
            let packedRow = CSI2Packing.rowBytes(width: format.width, bits: bits)
            planes = [PixelBuffer.Plane(offset: 0, bytesPerRow: max(format.bytesPerLine, packedRow), rowCount: format.height)]
            return
        }
        let lumaStride = max(format.bytesPerLine, pixelFormat.minimumBytesPerRow(plane: 0, width: width))
        var offset = 0
        var planes: [PixelBuffer.Plane] = []
        for index in 0..<pixelFormat.planeCount {
            let minimum = pixelFormat.minimumBytesPerRow(plane: index, width: width)
            // A plane's stride scales with the luma stride by the ratio of their packed widths.
            let base = pixelFormat.minimumBytesPerRow(plane: 0, width: width)
            let stride = index == 0 ? lumaStride : max(minimum, lumaStride * minimum / max(base, 1))
            let rows = pixelFormat.rowCount(plane: index, height: height)
            planes.append(PixelBuffer.Plane(offset: offset, bytesPerRow: stride, rowCount: rows))
            offset += stride * rows
        }
        self.planes = planes
    }

    /// The bytes a buffer must hold for the whole frame.
    var byteCount: Int { PixelBuffer.byteCount(of: planes) }
}
