import Glibc

/// Draws NV12 pictures into an NV12 picture: what a composition's frames are made of. Both
/// planes are copied row by row; rectangles are on even coordinates, so the half-resolution
/// chroma lines up.
enum NV12Canvas {
    /// Fills `canvas` black (Y 16, Cb Cr 128: video range).
    static func clear(_ canvas: PixelBuffer) {
        for (plane, value) in [(0, Int32(16)), (1, Int32(128))] {
            canvas.withUnsafeMutableBytes(ofPlane: plane) { bytes in
                if let start = bytes.baseAddress { _ = memset(start, value, bytes.count) }
            }
        }
    }

    /// Copies `picture` (NV12, the rectangle's size) into `canvas` at `rect`, clipped to both.
    static func draw(_ picture: PixelBuffer, into canvas: PixelBuffer, at rect: PixelRect) {
        guard picture.pixelFormat == .nv12, canvas.pixelFormat == .nv12 else { return }
        let x = rect.x & ~1, y = rect.y & ~1
        let width = min(picture.width, canvas.width - x) & ~1, height = min(picture.height, canvas.height - y) & ~1
        guard x >= 0, y >= 0, width > 0, height > 0 else { return }
        for plane in 0..<2 {
            let rows = plane == 0 ? height : height / 2, top = plane == 0 ? y : y / 2
            let sourceStride = picture.bytesPerRow(ofPlane: plane), targetStride = canvas.bytesPerRow(ofPlane: plane)
            picture.withUnsafeBytes(ofPlane: plane) { source in
                canvas.withUnsafeMutableBytes(ofPlane: plane) { target in
                    guard let from = source.baseAddress, let to = target.baseAddress else { return }
                    for row in 0..<rows {
                        memcpy(to + (top + row) * targetStride + x, from + row * sourceStride, width)
                    }
                }
            }
        }
    }
}
