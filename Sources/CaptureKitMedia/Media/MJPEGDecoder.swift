import CaptureKitCore

/// Decodes one Motion-JPEG frame at a time to RGB with the library's ``JPEGDecoder``, into
/// pooled buffers: a V4L2 or PipeWire camera's MJPEG stream. Used by one stream thread only.
/// Damaged frames (truncated, garbage, a size other than the stream's) are refused with
/// `.conversionFailed` so the stream drops and counts them instead of delivering a half-grey
/// picture.
package final class MJPEGDecoder {
    private let decoder: JPEGDecoder
    private let pool: PixelBufferPool
    package let width: Int
    package let height: Int

    /// A decoder for `width`×`height` frames.
    package init(width: Int, height: Int) throws(CaptureError) {
        decoder = try JPEGDecoder(damage: .conversionFailed, subject: "MJPEG frame")
        pool = try PixelBufferPool(width: width, height: height, pixelFormat: .rgb24, maximumIdleBuffers: 4)
        self.width = width
        self.height = height
    }

    /// The frame in `bytes`, decoded.
    package func decode(_ bytes: UnsafeRawBufferPointer) throws(CaptureError) -> PixelBuffer {
        let frame = try pool.makeBuffer()
        try decoder.decode(bytes, into: frame)
        return frame
    }
}
