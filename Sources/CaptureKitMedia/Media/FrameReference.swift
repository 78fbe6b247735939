import CaptureKitCore
package import CFFmpeg

/// Owns a decoded frame handed out by reference; frees it (returning its buffers to the
/// decoder's pools) when the pixel buffer wrapping it is released.
package final class FrameReference: StorageLender, @unchecked Sendable {
    // Unchecked Sendable: an AVFrame released exactly once, by the last holder of its pixels.
    private var frame: UnsafeMutablePointer<AVFrame>?

    package init(_ frame: UnsafeMutablePointer<AVFrame>) { self.frame = frame }

    /// Frees the frame: called once, when the storage lending it is released.
    package func takeBack(_ tag: Int) { av_frame_free(&frame) }

    deinit { av_frame_free(&frame) }
}
