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

    /// Starts `body` on a new thread named `name`. `body` should return soon after
    /// `isStopping` turns true; `wake` (if given) is called by `stop()` to interrupt a wait.
    package init(name: String, wake: (@Sendable () -> Void)? = nil, body: @escaping @Sendable (WorkerThread) -> Void) {
        self.wake = wake
        let thread = Thread { [self] in
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            body(self)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Whether `stop()` has been called.
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Asks the loop to end and waits for it. Safe to call more than once, and from the loop.
    package func stop() {
        if stopping.exchange(true, ordering: .acquiringAndReleasing) { return }
        wake?()
        let current = UInt(pthread_self())
        if current == threadID.load(ordering: .acquiring) { return }
        finished.wait()
    }
}
