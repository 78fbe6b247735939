import Glibc

/// The one clock every timestamp in CaptureKit is on: `CLOCK_MONOTONIC`.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (boot).
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The current time as a media time in nanoseconds.
    static func now() -> MediaTime { MediaTime(value: nanoseconds(), timescale: 1_000_000_000) }

    /// Sleeps until the absolute `deadline` (nanoseconds) — absolute, so pacing never drifts.
    /// Wraps `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, resuming after signals.
    static func sleep(untilNanoseconds deadline: Int64) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}
