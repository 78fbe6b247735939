import Glibc

/// A sleep until a deadline on the session clock that another thread can cut short: the pacing
/// wait of a worker thread, which ``WorkerThread/stop()`` must not have to sit out (a 30 fps
/// device would otherwise hold every stop up for as long as a frame interval). Wraps
/// `pthread_cond_timedwait` on a condition variable bound to `CLOCK_MONOTONIC`, so deadlines are
/// absolute on the clock `clock_nanosleep(TIMER_ABSTIME)` uses and a loop of sleeps never
/// drifts.
package final class WakeableSleep: @unchecked Sendable {
    // Unchecked Sendable: `woken` is guarded by the pthread mutex (a Mutex cannot wait on a condition with a deadline).
    // Heap-allocated because pthread objects must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var woken = false

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Blocks until the `CLOCK_MONOTONIC` time `deadline` (nanoseconds) or until ``wake()``,
    /// whichever comes first. Returns false when woken; once woken, every later call returns
    /// false at once.
    @discardableResult
    package func sleep(untilNanoseconds deadline: Int64) -> Bool {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !woken {
            // A spurious wake-up (0) only loops, the deadline staying absolute. ETIMEDOUT ends
            // the sleep, and so does EINVAL (a deadline before the clock's zero), never a spin.
            if pthread_cond_timedwait(condition, mutex, &target) != 0 { return true }
        }
        return false
    }

    /// Ends the current sleep and every later one.
    package func wake() {
        pthread_mutex_lock(mutex)
        woken = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
