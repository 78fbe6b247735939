/// Turns per-frame motion into episodes — began, changed, ended after a quiet period — the
/// motion output's state machine, a value that returns the event to publish (if any).
struct MotionEpisode: Sendable, Equatable {
    /// Quiet time after the last motion that ends an episode.
    var quietPeriod: MediaTime
    private(set) var lastMotion: MediaTime?

    init(quietPeriod: MediaTime) { self.quietPeriod = quietPeriod }

    /// Whether an episode is under way.
    var isActive: Bool { lastMotion != nil }

    /// The phase to publish for a frame captured at `time`, with or without motion; nil when
    /// nothing is to be said.
    mutating func frame(at time: MediaTime, motion: Bool) -> MotionEvent.Phase? {
        if motion {
            defer { lastMotion = time }
            return lastMotion == nil ? .began : .changed
        }
        guard let last = lastMotion, time - last >= quietPeriod else { return nil }
        lastMotion = nil
        return .ended
    }

    /// Ends an episode under way (the session stopped, or a gap in the video); true when one was.
    mutating func end() -> Bool {
        defer { lastMotion = nil }
        return lastMotion != nil
    }
}
