/// One measured run of a `network-record-720p` job, with what ffprobe counted in its files.
struct NetworkRecordRun: Sendable {
    /// From the start of the first camera to the end of the last.
    var wallSeconds: Double
    /// User + system CPU of the whole row: this process's `getrusage` difference for CaptureKit,
    /// the children's own `wait4` rusage summed for ffmpeg.
    var cpuSeconds: Double
    var peakRSSBytes: Int?
    /// What ``peakRSSBytes`` covers, as ``Measurement/peakRSSScope`` ("children": the sum of
    /// the ffmpeg children's peaks).
    var peakRSSScope: String
    /// This process's resident size when the ffmpeg children were spawned: the floor of each
    /// child's `ru_maxrss`; nil for CaptureKit.
    var rssAtSpawnBytes: Int?
    /// Frames CaptureKit's decoding data output delivered and dropped (nil for the other rows).
    var delivered: Int?
    var dropped: Int?
    /// Video packets in all the row's files, filled in after the run.
    var videoPackets = 0
    /// The files' sizes summed, filled in after the run (for the stream's bit rate).
    var bytes = 0
}
