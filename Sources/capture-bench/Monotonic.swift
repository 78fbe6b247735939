import Glibc

/// `CLOCK_MONOTONIC`, the clock CaptureKit stamps samples with and wall times are taken on.
enum Monotonic {
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Sleeps until the absolute `deadline`, resuming after signals.
    static func sleep(untilNanoseconds deadline: Int64) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}
