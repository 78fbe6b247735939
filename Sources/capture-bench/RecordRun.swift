/// One measured run of a `record-1080p` or `segment-1080p` job, with what ffprobe counted in the file it wrote.
struct RecordRun: Sendable {
    var wallSeconds: Double
    /// User + system CPU of the job (the child's own rusage for a peer, this process's
    /// `getrusage` difference for CaptureKit).
    var cpuSeconds: Double
    var peakRSSBytes: Int?
    /// What ``peakRSSBytes`` covers, as ``Measurement/peakRSSScope``.
    var peakRSSScope: String
    /// Samples CaptureKit's recording dropped (`RecordedMovie.droppedSampleCount`); nil for peers.
    var droppedSamples: Int?
    /// This process's resident size when a peer was spawned: the floor of the child's
    /// `ru_maxrss` (see ``RawVideoInput``); nil for CaptureKit.
    var rssAtSpawnBytes: Int?
    /// Packets per track of the output, filled in after the run.
    var counts = RecordProbe.Counts()
    /// The segments a segmented job wrote, in recording order (`segment-1080p`); empty otherwise.
    var segments: [SegmentProbe] = []
}
