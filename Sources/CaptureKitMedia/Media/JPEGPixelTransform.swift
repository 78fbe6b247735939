import CaptureKitCore
internal import CPhotoKernels

/// Turns a frame's pixels to an ``EXIFOrientation`` with the plane kernels of the TurboJPEG
/// shim (the JPEG encoder runs the same walk fused with its range expansion; PNG and HEIF use
/// this copy-only form).
package enum PixelTransform {
    /// Writes `source` turned by `orientation` into `target`, which must have the turned size
    /// and the same layout. Planar YUV, grey and packed RGB layouts only: packed YUV
    /// (`yuyv422`) shares chroma between neighbours and cannot be turned in place.
    package static func turn(_ source: PixelBuffer, into target: PixelBuffer, by orientation: EXIFOrientation) {
        let format = source.pixelFormat
        precondition(target.pixelFormat == format && [.yuv420p, .yuv422p, .gray8, .rgb24, .bgr24, .bgra, .rgba].contains(format))
        let pixelBytes = format.isYUV ? 1 : format.minimumBytesPerRow(plane: 0, width: 1)
        for plane in 0..<source.planeCount {
            let width = format.minimumBytesPerRow(plane: plane, width: source.width) / pixelBytes
            let height = source.rowCount(ofPlane: plane)
            let walk = orientation.sourceWalk(width: width, height: height)
            let sourceStride = source.bytesPerRow(ofPlane: plane)
            let targetWidth = format.minimumBytesPerRow(plane: plane, width: target.width) / pixelBytes
            source.withUnsafeBytes(ofPlane: plane) { from in
                target.withUnsafeMutableBytes(ofPlane: plane) { to in
                    let origin = from.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        + walk.origin.y * sourceStride + walk.origin.x * pixelBytes
                    ck_photo_transform_plane(to.baseAddress!.assumingMemoryBound(to: UInt8.self), target.bytesPerRow(ofPlane: plane),
                                             Int32(targetWidth), Int32(target.rowCount(ofPlane: plane)), origin,
                                             walk.row.dy * sourceStride + walk.row.dx * pixelBytes,
                                             walk.column.dy * sourceStride + walk.column.dx * pixelBytes,
                                             Int32(pixelBytes), Int32(CK_PHOTO_COPY))
                }
            }
        }
    }
}
