/// A video frame's luma, for the outputs that look at brightness only (code scanning, motion):
/// a frame whose plane 0 is the luma. Planar and semi-planar YUV and grey frames are their own
/// (read in place); packed 4:2:2 gives libyuv's copy of its luma samples into a pooled buffer
/// (`PixelConverter.luma(of:)`: the camera's own values, as read in place from planar YUV, at
/// about a twentieth of what a grey conversion through libswscale costs); RGB goes through the
/// session's shared grey conversion, and so do raw Bayer frames (demosaiced by libswscale).
package enum LumaFrame {
    /// `sample`'s luma as plane 0 of a frame (the frame itself where it can be read in place).
    package static func of(_ sample: SampleBuffer) throws(CaptureError) -> PixelBuffer {
        guard let frame = sample.pixelBuffer else { throw .invalidArgument("only video frames have luma") }
        switch frame.pixelFormat {
        case .nv12, .nv21, .yuv420p, .yuv422p, .gray8:
            return frame
        case .yuyv422, .uyvy422:
            guard let luma = try PixelConverter.shared.luma(of: frame) else {
                throw .internalError("libyuv took no luma from a \(frame.pixelFormat) frame")
            }
            return luma
        default:  // RGB and raw Bayer
            guard let grey = try sample.converted(to: VideoTarget(pixelFormat: .gray8)).pixelBuffer else {
                throw .internalError("a grey conversion of a video frame has no pixels")
            }
            return grey
        }
    }
}
