import Foundation

/// Hands samples from a device thread to one output's own thread without ever blocking the
/// device: a small queue with a drop policy, drained by a dedicated thread. Drops are recorded
/// on the device thread, in their place among the waiting samples, and reported from the output
/// thread in that order: a report comes after every sample captured before the drops it covers
/// and before every sample captured after them, so sequence numbers between two delivered
/// samples are exactly the drops reported between them.
package final class DeliveryQueue: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    package struct Item: Sendable {
        package var sample: SampleBuffer
        package var connection: CaptureConnection

        package init(sample: SampleBuffer, connection: CaptureConnection) {
            self.sample = sample
            self.connection = connection
        }
    }

    package struct Drop: Sendable {
        package var frame: DroppedFrame
        package var connection: CaptureConnection
        /// When the last frame the report covers ends: another drop merges into the report only
        /// when it is the very next frame, so a report always covers consecutive frames.
        package var end: MediaTime = .invalid
    }

    package enum Policy: Sendable {
        /// Keep only the newest sample; a waiting one is replaced (`frameWasLate`).
        case newestOnly
        /// Keep up to this many; when full the incoming sample is refused (`outOfBuffers`).
        case bounded(Int)
    }

    /// A waiting sample or drop report, in capture order.
    private enum Entry {
        case item(Item)
        case drop(Drop)
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var entries: [Entry] = []
    private var itemCount = 0
    private var policy: Policy
    private var worker: WorkerThread?
    private let name: String
    private let deliver: @Sendable (Item) -> Void
    private let report: @Sendable (Drop) -> Void

    package init(name: String, policy: Policy, deliver: @escaping @Sendable (Item) -> Void, report: @escaping @Sendable (Drop) -> Void) {
        self.name = name
        self.policy = policy
        self.deliver = deliver
        self.report = report
    }

    package func setPolicy(_ policy: Policy) {
        condition.lock()
        self.policy = policy
        condition.unlock()
    }

    /// Queues a sample; never blocks beyond a short lock.
    package func enqueue(_ item: Item) {
        condition.lock()
        startIfNeeded()
        switch policy {
        case .newestOnly:
            // Usually one waiting sample; more right after switching from a bounded policy.
            if itemCount > 0 { replaceWaitingItemsWithDrops() }
            entries.append(.item(item))
            itemCount += 1
        case .bounded(let capacity):
            if itemCount >= capacity {
                record(Self.drop(item, .outOfBuffers))
            } else {
                entries.append(.item(item))
                itemCount += 1
            }
        }
        condition.unlock()
        // After unlocking: the woken thread does not then block on the lock this thread holds
        // (a second futex round trip per sample). It re-checks the queue under the lock anyway.
        condition.signal()
    }

    /// Records a drop that happened before the output (in the device).
    package func enqueueDrop(_ drop: Drop) {
        condition.lock()
        startIfNeeded()
        record(drop)
        condition.unlock()
        condition.signal()
    }

    private static func drop(_ item: Item, _ reason: DroppedFrame.Reason) -> Drop {
        Drop(frame: DroppedFrame(presentationTimeStamp: item.sample.presentationTimeStamp, reason: reason, count: 1),
             connection: item.connection, end: item.sample.presentationTimeStamp + item.sample.duration)
    }

    /// Must be called with the lock held. Waiting samples become `frameWasLate` reports where
    /// they stood, merged with their neighbours.
    private func replaceWaitingItemsWithDrops() {
        let waiting = entries
        entries.removeAll(keepingCapacity: true)
        itemCount = 0
        for entry in waiting {
            switch entry {
            case .item(let late): record(Self.drop(late, .frameWasLate))
            case .drop(let drop): record(drop)
            }
        }
    }

    /// Must be called with the lock held. A drop directly after a report of consecutive frames
    /// for the same reason on the same connection joins it, so an overloaded consumer is told
    /// once per delivery rather than once per frame, and nothing is ever lost from the count.
    private func record(_ drop: Drop) {
        if case .drop(var last) = entries.last, last.frame.reason == drop.frame.reason,
           last.connection === drop.connection,
           !drop.frame.presentationTimeStamp.isValid || last.end == drop.frame.presentationTimeStamp {
            last.frame.count += drop.frame.count
            last.end = drop.end
            entries[entries.count - 1] = .drop(last)
        } else {
            entries.append(.drop(drop))
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

    /// Hands out the oldest entry, outside the lock.
    private func drainOnce(_ thread: WorkerThread) {
        condition.lock()
        while entries.isEmpty, !thread.isStopping { condition.wait() }
        let next = entries.isEmpty ? nil : entries.removeFirst()
        if case .item = next { itemCount -= 1 }
        condition.unlock()
        switch next {
        case .item(let item): deliver(item)
        case .drop(let drop): report(drop)
        case nil: break
        }
    }

    /// Ends the thread; queued samples are discarded. The owner calls this when it goes away.
    package func stop() {
        condition.lock()
        let running = worker
        entries.removeAll()
        itemCount = 0
        condition.unlock()
        running?.stop()
    }
}
