import CaptureKit
import Glibc

/// This process's wall clock and CPU time at one instant; two of them bracket a measurement.
struct ResourceSnapshot {
    /// `CLOCK_MONOTONIC` in nanoseconds.
    var wallNanoseconds: Int64
    /// User + system CPU of every thread of the process, including threads that have ended.
    var cpuSeconds: Double

    static func now() -> ResourceSnapshot {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return ResourceSnapshot(wallNanoseconds: MediaTime.now.value, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }

    /// Wall seconds from `earlier` to this snapshot.
    func wallSeconds(since earlier: ResourceSnapshot) -> Double {
        Double(wallNanoseconds - earlier.wallNanoseconds) / 1e9
    }

    /// CPU seconds from `earlier` to this snapshot.
    func cpuSeconds(since earlier: ResourceSnapshot) -> Double {
        cpuSeconds - earlier.cpuSeconds
    }
}
