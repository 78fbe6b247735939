import CaptureKit
import Foundation

/// One viewer of the MJPEG stream: libmicrohttpd's content reader for one connection. It runs
/// on that connection's own thread, so waiting for the next frame or writing to a slow socket
/// holds up nobody else. Each frame is copied straight from the shared encoded frame into
/// libmicrohttpd's send buffer; nothing is encoded or assembled per viewer.
final class MJPEGViewer: @unchecked Sendable {
    // Unchecked Sendable: confined to its connection's libmicrohttpd thread.
    private let broadcast: JPEGBroadcast
    private let onEnd: @Sendable (_ skipped: Int) -> Void
    // Touched only by the connection's thread.
    private var frame: JPEGBroadcast.Frame?
    private var offset = 0
    private var sentGeneration: UInt64 = 0
    private var skipped = 0

    private static let partTrailer = Data("\r\n".utf8)

    init(broadcast: JPEGBroadcast, onEnd: @escaping @Sendable (_ skipped: Int) -> Void) {
        self.broadcast = broadcast
        self.onEnd = onEnd
    }

    /// Fills up to `capacity` bytes of `buffer`; returns the count, or nil at the end of the
    /// stream (the preview stopped).
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if frame == nil || offset == length(of: frame!) {
            var next: JPEGBroadcast.Frame?
            // Waits in short steps so a stopped preview is noticed even without frames.
            while next == nil {
                if broadcast.closed { return nil }
                next = broadcast.frame(after: sentGeneration, timeout: 0.5)
            }
            guard let next else { return nil }
            if sentGeneration > 0 { skipped += Int(next.generation - sentGeneration - 1) }
            sentGeneration = next.generation
            frame = next
            offset = 0
        }
        guard let frame else { return nil }
        // The three parts are copied in turn without gathering them into an array: this runs
        // for every chunk libmicrohttpd sends.
        var written = 0
        var base = 0
        func copy(_ part: Data) {
            defer { base += part.count }
            let start = offset + written - base
            guard start >= 0, start < part.count, written < capacity else { return }
            let count = min(part.count - start, capacity - written)
            part.withUnsafeBytes { bytes in
                (buffer + written).copyMemory(from: bytes.baseAddress! + start, byteCount: count)
            }
            written += count
        }
        copy(frame.partHeader)
        copy(frame.jpeg)
        copy(Self.partTrailer)
        offset += written
        return written
    }

    /// The connection is gone: the frames published since the last one it got count as skipped.
    func finish() {
        if sentGeneration > 0 { skipped += Int(broadcast.newestGeneration - sentGeneration) }
        onEnd(skipped)
    }

    private func length(of frame: JPEGBroadcast.Frame) -> Int {
        frame.partHeader.count + frame.jpeg.count + Self.partTrailer.count
    }
}
