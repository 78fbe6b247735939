import Synchronization

/// The start time shared by the video and audio devices of one file. A session starts its
/// streams one after the other; if each took "now" as its zero, audio and video would be offset
/// by however long opening the second took. Streams that start while a sibling has been running
/// for less than `joinWindow` take the sibling's zero instead, and catch up at once.
final class FileClock: Sendable {
    /// How recently a running sibling must have started for a new stream to join its timeline
    /// rather than start its own (a stream added to a long-running session starts afresh).
    static let joinWindowNanoseconds: Int64 = 500_000_000

    private struct State {
        var origin: Int64 = 0
        var running = 0
    }

    private let state = Mutex(State())

    /// The monotonic time (nanoseconds) a starting stream counts its timestamps from.
    func start() -> Int64 {
        let now = MonotonicClock.nanoseconds()
        return state.withLock { state in
            if state.running == 0 || now - state.origin > Self.joinWindowNanoseconds {
                state.origin = now
            }
            state.running += 1
            return state.origin
        }
    }

    /// A stream that called ``start()`` has ended.
    func stop() {
        state.withLock { $0.running = max(0, $0.running - 1) }
    }
}
