import Foundation
import Synchronization

/// A dedicated thread running one loop until stopped: the device thread of a backend, or the
/// delivery thread of an output. `stop()` returns once the loop has ended, so after it nothing
/// the loop does can still happen — except when called from the loop's own thread (an owner
/// released there), where it only asks the loop to end.
package final class WorkerThread: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let threadID = Atomic<UInt>(0)
    private let wake: (@Sendable () -> Void)?
    private let pacing = WakeableSleep()

    /// Starts `body` on a new thread named `name`. `body` should return soon after
    /// `isStopping` turns true; `wake` (if given) is called by `stop()` to interrupt a wait.
    package init(name: String, wake: (@Sendable () -> Void)? = nil, body: @escaping @Sendable (WorkerThread) -> Void) {
        self.wake = wake
        let kernelName = Self.kernelName(name)
        let thread = Thread { [self] in
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            Self.nameInKernel(kernelName)
            body(self)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// `name` as the kernel keeps it (at most 15 bytes): "CaptureKit.audioDataOutput" is
    /// "CK.audioDataOut".
    package static func kernelName(_ name: String) -> String {
        let short = name.hasPrefix("CaptureKit.") ? "CK." + name.dropFirst("CaptureKit.".count) : name
        var kept = ""
        for character in short {
            guard kept.utf8.count + character.utf8.count <= 15 else { break }
            kept.append(character)
        }
        return kept
    }

    /// Names the calling thread in the kernel. Foundation passes the whole name, which the
    /// kernel refuses beyond 15 bytes, leaving the process's: `top -H`, `perf` and
    /// /proc/PID/task/*/comm then cannot tell the threads apart. Best effort: a thread without
    /// its name works all the same.
    private static func nameInKernel(_ name: String) {
        // What pthread_setname_np does on Linux (which Glibc's module map does not offer).
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// Whether `stop()` has been called.
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// For the loop: sleeps until the `CLOCK_MONOTONIC` time `deadline` (nanoseconds), or until
    /// `stop()` is called, whichever comes first, so a paced loop never delays a stop.
    package func sleep(untilNanoseconds deadline: Int64) {
        pacing.sleep(untilNanoseconds: deadline)
    }

    /// Asks the loop to end and waits for it. Safe to call more than once, and from the loop.
    package func stop() {
        if stopping.exchange(true, ordering: .acquiringAndReleasing) { return }
        pacing.wake()
        wake?()
        let current = UInt(pthread_self())
        if current == threadID.load(ordering: .acquiring) { return }
        finished.wait()
    }
}
