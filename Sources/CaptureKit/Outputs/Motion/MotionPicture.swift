import CYUV

/// The small grey picture the motion detector works on, made from a frame's luma
/// (``LumaFrame``): the luma plane box-filtered down by libyuv (SIMD; a frame's pixels are
/// read once).
enum MotionPicture {
    /// Fills `picture` (`width × height`, row-major, no padding) from `sample`'s frame.
    static func make(from sample: SampleBuffer, width: Int, height: Int, into picture: inout [UInt8]) throws(CaptureError) {
        let luma = try LumaFrame.of(sample)
        if picture.count != width * height { picture = [UInt8](repeating: 0, count: width * height) }
        luma.withUnsafeBytes(ofPlane: 0) { plane in
            Self.scale(plane.baseAddress!, stride: luma.bytesPerRow(ofPlane: 0), luma.width, luma.height, into: &picture, width, height)
        }
    }

    /// Wraps libyuv's `ScalePlane` with a box filter: each output pixel is the mean of the
    /// source pixels it covers (what keeps noise and fine texture from aliasing).
    private static func scale(_ source: UnsafeRawPointer, stride: Int, _ sourceWidth: Int, _ sourceHeight: Int,
                              into picture: inout [UInt8], _ width: Int, _ height: Int) {
        ScalePlane(source.assumingMemoryBound(to: UInt8.self), Int32(stride), Int32(sourceWidth), Int32(sourceHeight),
                   &picture, Int32(width), Int32(width), Int32(height), kFilterBox)
    }
}
