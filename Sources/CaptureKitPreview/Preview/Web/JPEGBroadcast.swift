import CaptureKit
import Foundation

/// The web preview's newest JPEG frame, encoded once and shared by every viewer. Viewers wait
/// for a frame newer than the one they sent last; one that fell behind simply gets the newest
/// (the frames in between are skipped for it alone), so no viewer waits for another.
final class JPEGBroadcast: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    /// One encoded frame with its multipart part header, both made once for all viewers.
    final class Frame: Sendable {
        let generation: UInt64
        let jpeg: Data
        /// `--frame`, the part's headers and the blank line before the JPEG.
        let partHeader: Data

        init(generation: UInt64, jpeg: Data) {
            self.generation = generation
            self.jpeg = jpeg
            partHeader = Data("--\(JPEGBroadcast.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
        }
    }

    /// The multipart boundary of the MJPEG stream.
    static let boundary = "capturekitframe"

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var latest: Frame?
    private var generation: UInt64 = 0
    private var isClosed = false

    /// Makes `jpeg` the newest frame and wakes every waiting viewer.
    func publish(_ jpeg: Data) {
        condition.lock()
        generation += 1
        latest = Frame(generation: generation, jpeg: jpeg)
        condition.broadcast()
        condition.unlock()
    }

    /// The newest frame if it is newer than `generation`, waiting up to `timeout` seconds for
    /// one; nil on timeout or once the broadcast is closed.
    func frame(after generation: UInt64, timeout: Double) -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !isClosed, (latest?.generation ?? 0) <= generation {
            if !condition.wait(until: deadline) { return nil }
        }
        return isClosed ? nil : latest
    }

    /// Whether ``close()`` was called.
    var closed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isClosed
    }

    /// The number of the newest frame (0 before the first).
    var newestGeneration: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    /// Ends every wait; viewers end their streams.
    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }
}
