import Foundation
import Synchronization
import Testing
@testable import CaptureKit

/// Worker threads carry their names to the kernel, where `top -H`, `perf` and the benchmarks'
/// CPU-by-thread figures read them.
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
}
