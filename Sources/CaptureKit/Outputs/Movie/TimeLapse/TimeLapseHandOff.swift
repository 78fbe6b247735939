import Foundation

/// What passes from the device thread to a time-lapse's worker, in order: the grid's start,
/// missed slots, shots, the stop, and the movie's end.
///
/// Shots are bounded: one may wait while the worker is busy with the one before; a shot offered
/// while one waits is refused (the slot counts as missed, busy), so a slow disk or encoder never
/// holds up the camera — except an unpaced device's, which waits for room instead (`holdBack`),
/// as a movie recording holds it back.
final class TimeLapseHandOff: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    enum Job: Sendable {
        case started(MediaTime)
        case missed(TimeLapseMiss)
        case shot(SampleBuffer, TimeLapseGrid.Slot)
        /// End the time-lapse (with the reason, if it is an error).
        case stop(CaptureError?)
        /// The movie recording ended by itself (with its error).
        case movieEnded(CaptureError?)
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [Job] = []
    private var waitingShots = 0
    private var closed = false

    /// Queues a job that is never refused (everything but a shot). Ignored once closed.
    func post(_ job: Job) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        jobs.append(job)
        condition.broadcast()
    }

    /// Queues a shot unless one already waits; with `holdBack`, waits for room instead (until
    /// the hand-off closes). False when refused.
    func offer(_ sample: SampleBuffer, slot: TimeLapseGrid.Slot, holdBack: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while holdBack, !closed, waitingShots > 0 { condition.wait() }
        guard !closed, waitingShots == 0 else { return false }
        jobs.append(.shot(sample, slot))
        waitingShots += 1
        condition.broadcast()
        return true
    }

    /// The next job, or nil when none came before `deadline`.
    func next(before deadline: Date) -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty {
            if !condition.wait(until: deadline) { return nil }
        }
        let job = jobs.removeFirst()
        if case .shot = job {
            waitingShots -= 1
            condition.broadcast()
        }
        return job
    }

    /// Whether the hand-off refuses everything (the time-lapse ended).
    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Refuses everything from now on and releases a held-back device thread.
    func close() {
        condition.lock()
        closed = true
        jobs.removeAll()
        waitingShots = 0
        condition.broadcast()
        condition.unlock()
    }
}
