import CaptureKitCore
package import CFFmpeg
import Foundation

/// Where ``AssetImageGenerator`` gets the decoded frame for a time: ``AssetFrameSeeker`` for
/// anything FFmpeg reads, ``HEIFFrameSource`` for HEIF and AVIF stills. Used by one thread at
/// a time.
package protocol AssetFrameSource: AnyObject, Sendable {
    /// The frame for `request` and its presentation time on the asset's timeline; valid until
    /// the next call or ``release()``.
    func frame(for request: AssetFrameSeeker.Request) throws(CaptureError) -> (frame: UnsafeMutablePointer<AVFrame>, time: MediaTime)
    /// Lets go of the decoded frames.
    func release()
}

/// A HEIF or AVIF still as an ``AssetFrameSource``: its one picture, decoded by libheif, at time
/// zero for every request.
package final class HEIFFrameSource: AssetFrameSource, @unchecked Sendable {
    // Unchecked Sendable: a libheif context and an FFmpeg frame used by one thread at a time.
    private let image: HEIFImage
    private let current: UnsafeMutablePointer<AVFrame>

    package init(url: URL) throws(CaptureError) {
        image = try HEIFImage(url: url)
        guard let current = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: url.path)
        }
        self.current = current
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = current
        av_frame_free(&freeing)
    }

    package func frame(for request: AssetFrameSeeker.Request) throws(CaptureError) -> (frame: UnsafeMutablePointer<AVFrame>, time: MediaTime) {
        try image.decode(into: current)
        return (current, .zero)
    }

    package func release() {
        av_frame_unref(current)
    }
}
