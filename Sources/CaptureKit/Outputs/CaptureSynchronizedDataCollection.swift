/// One output's part of a ``CaptureSynchronizedDataCollection``
/// (`AVCaptureSynchronizedSampleBufferData`).
public struct CaptureSynchronizedSampleBufferData: Sendable {
    /// The sample, nil when it was dropped.
    public let sampleBuffer: SampleBuffer?
    /// When it was captured (for a drop: when the dropped sample was, or invalid).
    public let timestamp: MediaTime
    /// Whether the output dropped the sample instead (`sampleBufferWasDropped`).
    public var sampleBufferWasDropped: Bool { sampleBuffer == nil }
    /// Why it was dropped (`droppedReason`), nil for a delivered sample.
    public let droppedReason: DroppedFrame.Reason?
}

/// What ``CaptureDataOutputSynchronizer`` delivers per frame of its master output
/// (`AVCaptureSynchronizedDataCollection`): the master's sample and, from each other output,
/// the sample nearest in time within the tolerance.
///
/// ```swift
/// func pair(_ collection: CaptureSynchronizedDataCollection, left: CaptureVideoDataOutput, right: CaptureVideoDataOutput) {
///     guard let l = collection[left]?.sampleBuffer, let r = collection[right]?.sampleBuffer else { return }
///     print("stereo pair \((l.presentationTimeStamp - r.presentationTimeStamp).seconds) s apart")
/// }
/// ```
public struct CaptureSynchronizedDataCollection: Sendable, Sequence {
    /// The master sample's time: what the others were matched against.
    public let timestamp: MediaTime
    private let entries: [(output: CaptureOutput, data: CaptureSynchronizedSampleBufferData)]
    private let unmatched: [CaptureOutput]
    private let skipped: [(output: CaptureOutput, count: Int)]

    init(timestamp: MediaTime, entries: [(output: CaptureOutput, data: CaptureSynchronizedSampleBufferData)],
         unmatched: [CaptureOutput], skipped: [(output: CaptureOutput, count: Int)]) {
        self.timestamp = timestamp
        self.entries = entries
        self.unmatched = unmatched
        self.skipped = skipped
    }

    /// The data of `output`, nil when it had none within tolerance (`subscript(_:)`).
    public subscript(output: CaptureOutput) -> CaptureSynchronizedSampleBufferData? { synchronizedData(for: output) }

    /// The data of `output`, nil when it had none within tolerance (`synchronizedData(for:)`).
    public func synchronizedData(for output: CaptureOutput) -> CaptureSynchronizedSampleBufferData? {
        entries.first { $0.output === output }?.data
    }

    /// How many outputs have data in the collection.
    public var count: Int { entries.count }

    /// The outputs that had no sample within tolerance of ``timestamp``: the ones it could not
    /// match (a camera that stalled, was unplugged, or runs at a lower rate).
    public var unmatchedOutputs: [CaptureOutput] { unmatched }

    /// Samples of `output` no collection took, since the previous collection: too far from every
    /// master sample, or dropped before they reached the synchronizer.
    public func skippedSampleCount(for output: CaptureOutput) -> Int {
        skipped.first { $0.output === output }?.count ?? 0
    }

    /// Iterates the outputs and their data (`makeIterator()`), master first.
    public func makeIterator() -> some IteratorProtocol<(output: CaptureOutput, data: CaptureSynchronizedSampleBufferData)> {
        entries.makeIterator()
    }
}
