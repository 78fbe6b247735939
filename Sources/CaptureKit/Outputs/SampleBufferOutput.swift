import Dispatch
import Synchronization

/// What video and audio data outputs share: a delegate on a queue, `AsyncStream`s of samples,
/// a delivery thread of their own and counters of what was delivered and dropped.
public class SampleBufferOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// What an output has delivered and dropped since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Samples handed to the delegate or streams.
        public var delivered: Int
        /// Samples not delivered (late, queue full, or skipped by the device).
        public var dropped: Int
    }

    private struct Consumers {
        weak var delegate: (any SampleBufferDelegate)?
        var queue: DispatchQueue?
        /// The synchronizer that takes the samples instead of the delegate, and this output's place in it.
        weak var synchronizer: CaptureDataOutputSynchronizer?
        var synchronizedIndex = 0
        var delivered = 0
        var dropped = 0
    }

    private let consumers = Mutex(Consumers())
    private let streams = Broadcast<SampleBuffer>()
    /// Read per sample on the device thread, so kept outside the lock: whether a delegate was
    /// registered (a delegate released since is noticed at delivery).
    private let hasDelegate = Atomic<Bool>(false)
    private(set) var delivery: DeliveryQueue!

    init(policy: DeliveryQueue.Policy, threadName: String) {
        super.init()
        delivery = DeliveryQueue(name: threadName, policy: policy, deliver: { [weak self] item in
            self?.deliver(item)
        }, report: { [weak self] drop in
            self?.report(drop)
        })
    }

    deinit {
        delivery.stop()
        streams.finish()
    }

    /// Sets who receives samples and on which queue (`setSampleBufferDelegate(_:queue:)`).
    /// Pass nil to stop. The delegate is held weakly; calls are serialized on `queue`.
    public func setSampleBufferDelegate(_ delegate: (any SampleBufferDelegate)?, queue: DispatchQueue?) {
        consumers.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "CaptureKit.sampleBufferDelegate"))
            hasDelegate.store(delegate != nil || $0.synchronizer != nil, ordering: .relaxed)
        }
    }

    /// Hands the samples to `synchronizer` (as its output `index`) instead of the delegate;
    /// nil to stop. False when another synchronizer has the output.
    @discardableResult
    func synchronize(with synchronizer: CaptureDataOutputSynchronizer?, as index: Int) -> Bool {
        consumers.withLock { consumers in
            if let synchronizer, let current = consumers.synchronizer, current !== synchronizer { return false }
            consumers.synchronizer = synchronizer
            consumers.synchronizedIndex = index
            hasDelegate.store(consumers.delegate != nil || synchronizer != nil, ordering: .relaxed)
            return true
        }
    }

    /// The delegate, if one is set.
    public var sampleBufferDelegate: (any SampleBufferDelegate)? { consumers.withLock { $0.delegate } }

    /// The queue the delegate is called on.
    public var sampleBufferCallbackQueue: DispatchQueue? { consumers.withLock { $0.queue } }

    /// A new stream of this output's samples; every access makes an independent stream. Slow
    /// readers only ever miss samples (they are counted as drops), they never slow capture.
    ///
    /// ```swift
    /// let output = CaptureVideoDataOutput()
    /// for await sample in output.sampleBuffers.prefix(30) { print(sample.presentationTimeStamp) }
    /// ```
    public var sampleBuffers: AsyncStream<SampleBuffer> { streams.makeStream(bufferingPolicy: streamBuffering) }

    /// What the output has delivered and dropped.
    public var statistics: Statistics {
        consumers.withLock { Statistics(delivered: $0.delivered, dropped: $0.dropped) }
    }

    // MARK: Subclass hooks

    /// How many samples a stream keeps for a slow reader.
    var streamBuffering: AsyncStream<SampleBuffer>.Continuation.BufferingPolicy { .bufferingNewest(1) }

    /// Turns a device sample into what this output delivers (converts format), or nil when it
    /// yields nothing yet (a resampler still filling up). Runs on the output's thread.
    func prepare(_ sample: SampleBuffer) throws(CaptureError) -> SampleBuffer? { sample }

    // MARK: Delivery

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        // Without listeners nothing is queued or converted.
        guard hasDelegate.load(ordering: .relaxed) || streams.hasStreams else { return }
        delivery.enqueue(DeliveryQueue.Item(sample: sample, connection: connection))
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        delivery.enqueueDrop(DeliveryQueue.Drop(
            frame: DroppedFrame(presentationTimeStamp: .invalid, reason: .discontinuity, count: count), connection: connection))
    }

    private func deliver(_ item: DeliveryQueue.Item) {
        let prepared: SampleBuffer
        do {
            guard let converted = try prepare(item.sample) else { return }
            prepared = converted
        } catch {
            session?.reportRuntimeError(error)
            return
        }
        let (delegate, queue, synchronizer, index) = consumers.withLock { ($0.delegate, $0.queue, $0.synchronizer, $0.synchronizedIndex) }
        let lateInStreams = streams.yield(prepared)
        if let synchronizer {
            synchronizer.take(prepared, from: index)
        } else if let delegate, let queue {
            // Synchronous: while the delegate is busy, newer samples wait in (or replace the one
            // in) the delivery queue, which is what makes late-frame dropping work.
            queue.sync { delegate.captureOutput(self, didOutput: prepared, from: item.connection) }
        }
        consumers.withLock {
            $0.delivered += 1
            $0.dropped += lateInStreams
        }
    }

    private func report(_ drop: DeliveryQueue.Drop) {
        let (delegate, queue, synchronizer, index) = consumers.withLock { consumers in
            consumers.dropped += drop.frame.count
            return (consumers.delegate, consumers.queue, consumers.synchronizer, consumers.synchronizedIndex)
        }
        if let synchronizer {
            synchronizer.dropped(drop.frame, from: index)
        } else if let delegate, let queue {
            queue.sync { delegate.captureOutput(self, didDrop: drop.frame, from: drop.connection) }
        }
    }
}
