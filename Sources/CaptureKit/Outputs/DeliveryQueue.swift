import Foundation

/// Hands samples from a device thread to one output's own thread without ever blocking the
/// device: a small queue with a drop policy, drained by a dedicated thread. Drops are recorded
/// on the device thread and reported from the output thread, before the next sample.
final class DeliveryQueue: @unchecked Sendable {
    struct Item: Sendable {
        var sample: SampleBuffer
        var connection: CaptureConnection
    }

    struct Drop: Sendable {
        var frame: DroppedFrame
        var connection: CaptureConnection
        /// When the last frame the report covers ends: another drop merges into the report only
        /// when it is the very next frame, so a report always covers consecutive frames.
        var end: MediaTime = .invalid
    }

    enum Policy: Sendable {
        /// Keep only the newest sample; a waiting one is replaced (`frameWasLate`).
        case newestOnly
        /// Keep up to this many; when full the incoming sample is refused (`outOfBuffers`).
        case bounded(Int)
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var items: [Item] = []
    private var drops: [Drop] = []
    /// Swapped with `drops` when draining, so neither array is reallocated per frame.
    private var reporting: [Drop] = []
    private var policy: Policy
    private var worker: WorkerThread?
    private let name: String
    private let deliver: @Sendable (Item) -> Void
    private let report: @Sendable (Drop) -> Void

    init(name: String, policy: Policy, deliver: @escaping @Sendable (Item) -> Void, report: @escaping @Sendable (Drop) -> Void) {
        self.name = name
        self.policy = policy
        self.deliver = deliver
        self.report = report
    }

    func setPolicy(_ policy: Policy) {
        condition.lock()
        self.policy = policy
        condition.unlock()
    }

    /// Queues a sample; never blocks beyond a short lock.
    func enqueue(_ item: Item) {
        condition.lock()
        startIfNeeded()
        switch policy {
        case .newestOnly:
            // Usually one waiting sample; more right after switching from a bounded policy.
            for late in items { record(Self.drop(late, .frameWasLate)) }
            items.removeAll(keepingCapacity: true)
            items.append(item)
        case .bounded(let capacity):
            if items.count >= capacity {
                record(Self.drop(item, .outOfBuffers))
            } else {
                items.append(item)
            }
        }
        condition.signal()
        condition.unlock()
    }

    /// Records a drop that happened before the output (in the device).
    func enqueueDrop(_ drop: Drop) {
        condition.lock()
        startIfNeeded()
        record(drop)
        condition.signal()
        condition.unlock()
    }

    private static func drop(_ item: Item, _ reason: DroppedFrame.Reason) -> Drop {
        Drop(frame: DroppedFrame(presentationTimeStamp: item.sample.presentationTimeStamp, reason: reason, count: 1),
             connection: item.connection, end: item.sample.presentationTimeStamp + item.sample.duration)
    }

    /// Must be called with the lock held. Drops of consecutive frames for one reason on one
    /// connection become one report with a count, so an overloaded consumer is told once per
    /// delivery rather than once per frame, and nothing is ever lost from the count.
    private func record(_ drop: Drop) {
        if let last = drops.indices.last, drops[last].frame.reason == drop.frame.reason,
           drops[last].connection === drop.connection,
           !drop.frame.presentationTimeStamp.isValid || drops[last].end == drop.frame.presentationTimeStamp {
            drops[last].frame.count += drop.frame.count
            drops[last].end = drop.end
        } else {
            drops.append(drop)
        }
    }

    /// Must be called with the lock held. The thread starts with the first sample, so outputs
    /// that are never used cost no thread.
    private func startIfNeeded() {
        guard worker == nil else { return }
        worker = WorkerThread(name: name, wake: { [condition] in
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }) { [self] thread in
            while !thread.isStopping { drainOnce(thread) }
        }
    }

    private func drainOnce(_ thread: WorkerThread) {
        condition.lock()
        while items.isEmpty, drops.isEmpty, !thread.isStopping { condition.wait() }
        swap(&drops, &reporting)
        let next = items.isEmpty ? nil : items.removeFirst()
        condition.unlock()
        for drop in reporting { report(drop) }
        reporting.removeAll(keepingCapacity: true)
        if let next { deliver(next) }
    }

    /// Ends the thread; queued samples are discarded. The owner calls this when it goes away.
    func stop() {
        condition.lock()
        let running = worker
        items.removeAll()
        condition.unlock()
        running?.stop()
    }
}
