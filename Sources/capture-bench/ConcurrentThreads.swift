import Dispatch
import Foundation
import Synchronization

/// Runs the same job several times at once, each on a thread of its own, and waits for all:
/// how `network-record-720p` records N cameras together — N ffmpeg children each waited for by
/// its own `wait4`, or N CaptureKit sessions each set up, run and finished by its own thread.
///
/// Threads, not tasks: every job blocks (in `wait4`, in connecting, for the recorded time), and
/// Swift's cooperative pool has only as many threads as cores, which would run 16 cameras two
/// at a time.
enum ConcurrentThreads {
    /// What each job gave back, by index; written by the job's thread.
    private final class Outcomes<Value: Sendable>: Sendable {
        let values: Mutex<[Int: Result<Value, any Error>]> = Mutex([:])
    }

    /// Runs `job(0)` … `job(count - 1)` at once and returns each one's result, in index order.
    static func run<Value: Sendable>(_ count: Int, name: String, _ job: @escaping @Sendable (Int) throws -> Value) -> [Result<Value, any Error>] {
        let outcomes = Outcomes<Value>()
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                let result = Result { try job(index) }
                outcomes.values.withLock { $0[index] = result }
                group.leave()
            }
            thread.name = "\(name) \(index)"
            thread.start()
        }
        group.wait()
        return outcomes.values.withLock { values in
            (0..<count).map { values[$0] ?? .failure(BenchError("\(name) \($0) gave no result")) }
        }
    }
}
