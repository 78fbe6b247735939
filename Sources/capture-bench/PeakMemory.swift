import Foundation
import Glibc

/// This process's resident memory: the current size and the peak, per measurement where the
/// kernel allows it.
///
/// `ru_maxrss` only ever grows, so on its own it would charge every case with the peak of the
/// cases before it. Writing 5 to `/proc/self/clear_refs` resets the high-water mark the kernel
/// reports as `VmHWM`, which makes a per-case peak possible.
enum PeakMemory {
    /// Resets the high-water mark; false when the kernel does not allow it (then
    /// ``peak(wasReset:)`` gives the process-wide figure).
    static func reset() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// The peak RSS in bytes: since the last ``reset()`` when `wasReset` (it returned true) and
    /// `VmHWM` is readable, otherwise `ru_maxrss`, the whole process's peak so far.
    static func peak(wasReset: Bool) -> (bytes: Int, scope: String) {
        if wasReset, let kib = statusKiB("VmHWM") { return (kib * 1024, "case") }
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return (usage.ru_maxrss * 1024, "process")
    }

    /// The resident set size now, in bytes, or nil when `/proc` cannot tell.
    static func current() -> Int? { statusKiB("VmRSS").map { $0 * 1024 } }

    /// A `kB` line of `/proc/self/status` ("VmHWM:     2144 kB").
    private static func statusKiB(_ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
        return Int(line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }
}
