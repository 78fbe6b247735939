internal import CFFmpeg
import Glibc
import Synchronization

/// What FFmpeg's blocking network calls poll (`AVIOInterruptCB`, every 100 ms or so) to learn
/// that they must give up: the publisher is stopping, or the call has run past its deadline —
/// a server that accepts the connection and then stops reading must not hold the publisher
/// (and its queue) for the minutes TCP takes to notice.
final class StreamInterrupt: Sendable {
    /// The longest a connection attempt may take.
    static let connectTimeout = MediaTime(value: 5, timescale: 1)
    /// The longest one write may block.
    static let stallTimeout = MediaTime(value: 5, timescale: 1)

    private let stopping = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds; 0 for none.
    private let deadline = Atomic<Int64>(0)
    private let expired = Atomic<Bool>(false)

    /// The callback to hand FFmpeg; valid while this object lives.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<StreamInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt() ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Ends every blocking call from now on.
    func stop() { stopping.store(true, ordering: .releasing) }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Starts a deadline `timeout` from now for the next blocking call (nil: none).
    func arm(_ timeout: MediaTime?) {
        expired.store(false, ordering: .releasing)
        deadline.store(timeout.map { Self.now() + Int64($0.seconds * 1e9) } ?? 0, ordering: .releasing)
    }

    /// Whether the last call ended because its deadline passed.
    var timedOut: Bool { expired.load(ordering: .acquiring) }

    private func shouldInterrupt() -> Bool {
        if isStopping { return true }
        let limit = deadline.load(ordering: .acquiring)
        guard limit != 0, Self.now() > limit else { return false }
        expired.store(true, ordering: .releasing)
        return true
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
