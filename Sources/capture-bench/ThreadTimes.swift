import Foundation
import Glibc

/// CPU time of each thread of a process at one instant (`/proc/PID/task/*/schedstat`, in
/// nanoseconds), by thread name: two of them say where a measurement's CPU went.
struct ThreadTimes {
    /// Nanoseconds on a CPU, by thread name (threads of one name added up).
    var nanoseconds: [String: Int64]

    /// All of them.
    var total: Int64 { nanoseconds.values.reduce(0, +) }

    /// The threads of process `pid` (nil: this one).
    static func now(of pid: pid_t? = nil) -> ThreadTimes {
        let process = pid.map { "/proc/\($0)" } ?? "/proc/self"
        var times: [String: Int64] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "\(process)/task")) ?? []
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "\(process)/task/\(task)/schedstat", encoding: .utf8),
                  let onCPU = stat.split(separator: " ").first.flatMap({ Int64($0) }) else { continue }
            let name = (try? String(contentsOfFile: "\(process)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? task
            times[name, default: 0] += onCPU
        }
        return ThreadTimes(nanoseconds: times)
    }

    /// CPU per thread name from `earlier` to this snapshot (threads that ended meanwhile are
    /// not counted), largest first, leaving out those under `minimum` nanoseconds.
    func spent(since earlier: ThreadTimes, minimum: Int64 = 1_000_000) -> [(name: String, nanoseconds: Int64)] {
        nanoseconds.map { ($0.key, $0.value - (earlier.nanoseconds[$0.key] ?? 0)) }
            .filter { $0.1 >= minimum }
            .sorted { $0.1 > $1.1 }
    }
}
