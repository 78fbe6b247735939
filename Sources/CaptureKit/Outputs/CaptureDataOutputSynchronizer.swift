import Dispatch
import Synchronization

/// Receives the collections of a ``CaptureDataOutputSynchronizer`` on its queue
/// (`AVCaptureDataOutputSynchronizerDelegate`).
public protocol CaptureDataOutputSynchronizerDelegate: AnyObject, Sendable {
    /// One collection per master sample (`dataOutputSynchronizer(_:didOutput:)`).
    func dataOutputSynchronizer(_ synchronizer: CaptureDataOutputSynchronizer, didOutput collection: CaptureSynchronizedDataCollection)
}

/// Delivers the samples of several data outputs together, matched by time
/// (`AVCaptureDataOutputSynchronizer`): per sample of the master output (the first), the
/// sample of each other output nearest in time within ``tolerance``. Every camera's frames
/// carry times of the same monotonic clock, so frames of two cameras in a
/// ``CaptureMultiCamSession`` (or in two sessions) pair by their capture times.
///
/// While synchronized, the outputs' own delegates are not called (as on AVFoundation); their
/// `sampleBuffers` streams still see every sample. A sample goes into one collection at most.
/// A collection is delivered once each other output has shown a sample at or after the master's
/// time, or once four newer master samples wait — a camera that stalls or is unplugged delays
/// nothing for longer, and shows in ``CaptureSynchronizedDataCollection/unmatchedOutputs``.
/// Samples no collection took are counted in ``CaptureSynchronizedDataCollection/skippedSampleCount(for:)``
/// and ``statistics``; a master sample its output dropped arrives as a collection whose master
/// data has ``CaptureSynchronizedSampleBufferData/sampleBufferWasDropped``.
///
/// ```swift
/// final class Stereo: CaptureDataOutputSynchronizerDelegate {
///     func dataOutputSynchronizer(_ synchronizer: CaptureDataOutputSynchronizer, didOutput collection: CaptureSynchronizedDataCollection) {
///         print(collection.timestamp.seconds, collection.count, "outputs")
///     }
/// }
/// func synchronize(_ left: CaptureVideoDataOutput, _ right: CaptureVideoDataOutput, to stereo: Stereo) throws -> CaptureDataOutputSynchronizer {
///     let synchronizer = try CaptureDataOutputSynchronizer(dataOutputs: [left, right])
///     synchronizer.setDelegate(stereo, queue: DispatchQueue(label: "stereo"))
///     return synchronizer
/// }
/// ```
public final class CaptureDataOutputSynchronizer: Sendable {
    /// What the synchronizer has delivered and could not match.
    public struct Statistics: Sendable, Hashable {
        /// Collections delivered.
        public var collections = 0
        /// Samples of the other outputs delivered in a collection.
        public var matched = 0
        /// Times an output had no sample within tolerance of a master sample.
        public var unmatched = 0
        /// Samples of the other outputs no collection took (or dropped before it).
        public var skipped = 0
    }

    private struct State {
        var matcher: SynchronizationMatcher<SampleBuffer>
        var outbox: [CaptureSynchronizedDataCollection] = []
        var statistics = Statistics()
        weak var delegate: (any CaptureDataOutputSynchronizerDelegate)?
        var queue: DispatchQueue?
    }

    /// The outputs, master first (`dataOutputs`).
    public let dataOutputs: [CaptureOutput]
    private let state: Mutex<State>
    private let streams = Broadcast<CaptureSynchronizedDataCollection>()

    /// Synchronizes `dataOutputs` (video or audio data outputs), the first being the master.
    /// `tolerance`: how far from a master sample another may be; nil (the default) is half
    /// the master's frame interval before that sample. `.invalidArgument` for no outputs, an
    /// output that is not a data output, one given twice, or one another synchronizer has.
    public init(dataOutputs: [CaptureOutput], tolerance: MediaTime? = nil) throws(CaptureError) {
        guard !dataOutputs.isEmpty else { throw .invalidArgument("a synchronizer needs at least one data output") }
        let outputs = dataOutputs.compactMap { $0 as? SampleBufferOutput }
        guard outputs.count == dataOutputs.count else {
            throw .invalidArgument("only video and audio data outputs can be synchronized")
        }
        guard Set(dataOutputs.map(ObjectIdentifier.init)).count == dataOutputs.count else {
            throw .invalidArgument("an output is given twice to the synchronizer")
        }
        if let tolerance, !(tolerance.isNumeric && tolerance >= .zero) {
            throw .invalidArgument("the tolerance must be a time of zero or more, not \(tolerance)")
        }
        self.dataOutputs = dataOutputs
        state = Mutex(State(matcher: SynchronizationMatcher(streamCount: dataOutputs.count, tolerance: tolerance)))
        for (index, output) in outputs.enumerated() {
            guard output.synchronize(with: self, as: index) else {
                for earlier in outputs[..<index] { earlier.synchronize(with: nil, as: 0) }
                throw .invalidArgument("an output is already synchronized by another synchronizer")
            }
        }
    }

    deinit {
        for output in dataOutputs { (output as? SampleBufferOutput)?.synchronize(with: nil, as: 0) }
        streams.finish()
    }

    /// How far from a master sample another may be; nil: half the master's frame interval
    /// before that sample.
    public var tolerance: MediaTime? { state.withLock { $0.matcher.tolerance } }

    /// Sets who receives the collections and on which queue (`setDelegate(_:queue:)`); held weakly.
    public func setDelegate(_ delegate: (any CaptureDataOutputSynchronizerDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "CaptureKit.dataOutputSynchronizer"))
        }
    }

    /// The delegate, if one is set.
    public var delegate: (any CaptureDataOutputSynchronizerDelegate)? { state.withLock { $0.delegate } }

    /// The queue the delegate is called on (`delegateCallbackQueue`).
    public var delegateCallbackQueue: DispatchQueue? { state.withLock { $0.queue } }

    /// A new stream of the collections from now on; every access makes an independent stream
    /// (a slow reader misses the oldest, keeping the newest 8).
    public var collections: AsyncStream<CaptureSynchronizedDataCollection> { streams.makeStream(bufferingPolicy: .bufferingNewest(8)) }

    /// What has been delivered and left unmatched so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    // MARK: From the outputs (their delivery threads)

    /// A sample output `index` prepared.
    func take(_ sample: SampleBuffer, from index: Int) {
        let ticks = state.withLock { $0.matcher.add(sample, at: sample.presentationTimeStamp, stream: index) }
        publish(ticks)
    }

    /// Output `index` dropped samples.
    func dropped(_ frame: DroppedFrame, from index: Int) {
        if index == 0 {
            let master = CaptureSynchronizedSampleBufferData(sampleBuffer: nil, timestamp: frame.presentationTimeStamp, droppedReason: frame.reason)
            let collection = CaptureSynchronizedDataCollection(timestamp: frame.presentationTimeStamp, entries: [(dataOutputs[0], master)],
                                                               unmatched: [], skipped: [])
            state.withLock {
                $0.outbox.append(collection)
                $0.statistics.collections += 1
            }
            deliverOutbox()
        } else {
            state.withLock { $0.matcher.lost(frame.count, stream: index) }
        }
    }

    private func publish(_ ticks: [SynchronizationMatcher<SampleBuffer>.Tick]) {
        guard !ticks.isEmpty else { return }
        let outputs = dataOutputs
        let made = ticks.map { tick in
            var entries: [(output: CaptureOutput, data: CaptureSynchronizedSampleBufferData)] = [
                (outputs[0], CaptureSynchronizedSampleBufferData(sampleBuffer: tick.master, timestamp: tick.time, droppedReason: nil)),
            ]
            for index in 1..<outputs.count {
                if let match = tick.matched[index] {
                    entries.append((outputs[index], CaptureSynchronizedSampleBufferData(sampleBuffer: match.payload, timestamp: match.time, droppedReason: nil)))
                }
            }
            return CaptureSynchronizedDataCollection(timestamp: tick.time, entries: entries, unmatched: tick.unmatched.map { outputs[$0] },
                                                     skipped: tick.skipped.map { (outputs[$0.key], $0.value) })
        }
        state.withLock { state in
            state.outbox.append(contentsOf: made)
            for tick in ticks {
                state.statistics.collections += 1
                state.statistics.matched += tick.matched.count
                state.statistics.unmatched += tick.unmatched.count
                state.statistics.skipped += tick.skipped.values.reduce(0, +)
            }
        }
        deliverOutbox()
    }

    /// Hands the waiting collections over in order. Synchronous on the delegate's queue, so a
    /// busy delegate holds the outputs' threads back and they drop late samples (reported).
    private func deliverOutbox() {
        guard let queue = state.withLock({ $0.queue }) else {
            for collection in state.withLock({ state in defer { state.outbox.removeAll() }; return state.outbox }) { _ = streams.yield(collection) }
            return
        }
        queue.sync {
            let (ready, delegate) = state.withLock { state in
                defer { state.outbox.removeAll() }
                return (state.outbox, state.delegate)
            }
            for collection in ready {
                _ = streams.yield(collection)
                delegate?.dataOutputSynchronizer(self, didOutput: collection)
            }
        }
    }
}
