import Glibc

/// The one clock every timestamp in CaptureKit is on: `CLOCK_MONOTONIC`.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (boot).
    package static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The current time as a media time in nanoseconds.
    package static func now() -> MediaTime { MediaTime(value: nanoseconds(), timescale: 1_000_000_000) }

    /// Sleeps until the absolute `deadline` (nanoseconds) — absolute, so pacing never drifts.
    /// Wraps `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, resuming after signals.
    package static func sleep(untilNanoseconds deadline: Int64) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}

extension MediaTime {
    /// Now on the session clock: `CLOCK_MONOTONIC` in nanoseconds (timescale 1 000 000 000, so
    /// `value` is the nanosecond count), the clock every sample's `presentationTimeStamp` is on
    /// (`CMClockGetTime(CMClockGetHostTimeClock())`). A sample's age is `MediaTime.now` minus
    /// its presentation time.
    public static var now: MediaTime { MonotonicClock.now() }

    /// Blocks the calling thread until `deadline` on the session clock; returns at once for a
    /// deadline that passed or is not numeric. Absolute, so a loop of sleeps never drifts.
    /// Wraps `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, resuming after signals.
    public static func sleep(until deadline: MediaTime) {
        guard let nanoseconds = deadline.nanoseconds else { return }
        MonotonicClock.sleep(untilNanoseconds: nanoseconds)
    }
}

extension MonotonicClock {
    /// A session-clock time in samples of `rate`: rounded down for a bound (the samples
    /// certainly captured by then), to the nearest for a measurement. The one conversion every
    /// audio backend's timeline uses; exact for any uptime (128-bit intermediate).
    package static func samples(atNanoseconds nanoseconds: Int64, rate: Int, rounding: MediaTime.RoundingMethod) -> Int64 {
        MediaTime.mulDiv(nanoseconds, Int64(rate), 1_000_000_000, rounding)?.0 ?? (nanoseconds < 0 ? .min : .max)
    }

    /// The session-clock nanosecond sample `sample` of `rate` falls on, rounded down.
    package static func nanoseconds(atSample sample: Int64, rate: Int) -> Int64 {
        MediaTime.mulDiv(sample, 1_000_000_000, Int64(rate), .roundTowardNegativeInfinity)?.0 ?? (sample < 0 ? .min : .max)
    }
}
