import Foundation
import Synchronization
import Testing
@testable import CaptureKit

/// Worker threads carry their names to the kernel, where `top -H`, `perf` and the benchmarks'
/// CPU-by-thread figures read them, and their paced sleeps end when they are stopped.
struct WorkerThreadTests {
    @Test func theKernelKnowsAThreadByItsShortName() {
        #expect(WorkerThread.kernelName("CaptureKit.audioDataOutput") == "CK.audioDataOut")
        #expect(WorkerThread.kernelName("CaptureKit.v4l2") == "CK.v4l2")
        #expect(WorkerThread.kernelName("bench.ünïcödé.thread") == "bench.ünïcöd", "cut at a character, within 15 bytes")
        let seen = Mutex<String?>(nil)
        let thread = WorkerThread(name: "CaptureKit.audioDataOutput") { _ in
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        thread.stop()
        #expect(seen.withLock { $0 } == "CK.audioDataOut")
    }

    /// A paced loop (a 30 fps device, a file with long gaps) must not hold `stop()` up until its
    /// next deadline: the sleep ends when the thread is stopped. Without that this test would sit
    /// out the whole minute and then fail.
    @Test func stoppingEndsAPacedSleep() {
        let started = DispatchSemaphore(value: 0)
        let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
        let wokeAt = Mutex<Int64?>(nil)
        let thread = WorkerThread(name: "test.pacedSleep") { thread in
            started.signal()
            thread.sleep(untilNanoseconds: deadline)
            wokeAt.withLock { $0 = MonotonicClock.nanoseconds() }
        }
        started.wait()
        thread.stop()
        let woke = wokeAt.withLock { $0 }
        #expect(woke != nil && woke! < deadline, "the sleep ran to its deadline")
    }

    /// Not stopped, the sleep lasts until its absolute deadline on the monotonic clock, and a
    /// deadline already passed returns at once.
    @Test func aPacedSleepLastsUntilItsDeadline() {
        let times = Mutex<[Int64]>([])
        let deadline = MonotonicClock.nanoseconds() + 30_000_000
        let done = DispatchSemaphore(value: 0)
        let thread = WorkerThread(name: "test.pacedSleep") { thread in
            thread.sleep(untilNanoseconds: deadline)
            let first = MonotonicClock.nanoseconds()
            thread.sleep(untilNanoseconds: deadline)
            thread.sleep(untilNanoseconds: -1)   // a deadline no timespec can hold returns, too
            times.withLock { $0 = [first, MonotonicClock.nanoseconds()] }
            done.signal()
        }
        done.wait()
        thread.stop()
        let seen = times.withLock { $0 }
        #expect(seen.count == 2 && seen[0] >= deadline, "woke \(seen.first.map { Double($0 - deadline) / 1e6 } ?? 0) ms after the deadline")
        #expect(seen.count == 2 && seen[1] >= seen[0])
    }
}
