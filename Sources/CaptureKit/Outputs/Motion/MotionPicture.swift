import CYUV

/// The small grey picture the motion detector works on, made from a frame's luma: the luma
/// plane box-filtered down by libyuv (SIMD; a frame's pixels are read once), after libyuv has
/// pulled the luma out of a packed 4:2:2 frame. RGB frames, which cameras rarely send, go
/// through the session's shared grey conversion (libswscale).
struct MotionPicture {
    /// The full-size luma of a packed frame, reused from frame to frame.
    private var luma: [UInt8] = []

    /// Fills `picture` (`width × height`, row-major, no padding) from `sample`'s frame.
    mutating func make(from sample: SampleBuffer, width: Int, height: Int, into picture: inout [UInt8]) throws(CaptureError) {
        guard let frame = sample.pixelBuffer else { throw .invalidArgument("motion can only be found in video frames") }
        if picture.count != width * height { picture = [UInt8](repeating: 0, count: width * height) }
        switch frame.pixelFormat {
        case .nv12, .nv21, .yuv420p, .yuv422p, .gray8:
            frame.withUnsafeBytes(ofPlane: 0) { plane in
                Self.scale(plane.baseAddress!, stride: frame.bytesPerRow(ofPlane: 0), frame.width, frame.height, into: &picture, width, height)
            }
        case .yuyv422, .uyvy422:
            if luma.count != frame.width * frame.height { luma = [UInt8](repeating: 0, count: frame.width * frame.height) }
            frame.withUnsafeBytes(ofPlane: 0) { plane in
                let source = plane.baseAddress!.assumingMemoryBound(to: UInt8.self), stride = Int32(frame.bytesPerRow(ofPlane: 0))
                if frame.pixelFormat == .yuyv422 {
                    _ = YUY2ToY(source, stride, &luma, Int32(frame.width), Int32(frame.width), Int32(frame.height))
                } else {
                    _ = UYVYToY(source, stride, &luma, Int32(frame.width), Int32(frame.width), Int32(frame.height))
                }
            }
            luma.withUnsafeBytes { full in
                Self.scale(full.baseAddress!, stride: frame.width, frame.width, frame.height, into: &picture, width, height)
            }
        case .rgb24, .bgr24, .bgra, .rgba:
            guard let grey = try sample.converted(to: VideoTarget(pixelFormat: .gray8, width: width, height: height)).pixelBuffer else {
                throw .internalError("a grey conversion of a video frame has no pixels")
            }
            let stride = grey.bytesPerRow(ofPlane: 0)
            grey.withUnsafeBytes(ofPlane: 0) { plane in
                picture.withUnsafeMutableBytes { target in
                    for row in 0..<height {
                        target.baseAddress!.advanced(by: row * width).copyMemory(from: plane.baseAddress!.advanced(by: row * stride), byteCount: width)
                    }
                }
            }
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
