/// One measured run of a `multicam` job, with what ffprobe counted in its files.
struct MultiCamRun: Sendable {
    /// From before the first camera is made (or the first child spawned) to the last file finished.
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
    /// Frames CaptureKit's data outputs handed to their delegates, summed over cameras (their
    /// ``SampleBufferOutput/statistics``); nil for ffmpeg, whose `-f null` output counts nothing.
    var delivered: Int?
    /// Frames CaptureKit's data outputs dropped, summed (their statistics); nil for ffmpeg.
    var dropped: Int?
    /// `didDrop` calls the data outputs' delegates heard, summed; nil for ffmpeg.
    var dropCallbacks: Int?
    /// Samples CaptureKit's recordings dropped (`RecordedMovie.droppedSampleCount`), summed; nil for ffmpeg.
    var movieDropped: Int?
    /// Video frames CaptureKit's recordings say they wrote (`RecordedMovie.videoFrameCount`), summed; nil for ffmpeg.
    var movieFrames: Int?
    /// Steps of CaptureKit's recordings to a faster x264 preset (an encoder behind), summed
    /// (``MultiCamEncoderSteps``); nil for ffmpeg.
    var stepsFaster: Int?
    /// Steps back towards the configured preset (the start's superfast → veryfast included), summed; nil for ffmpeg.
    var stepsSlower: Int?
    /// Frames any output of the run dropped: the data outputs' and the recordings' (0 for ffmpeg,
    /// whose `-re` input waits instead).
    var allDropped: Int { (dropped ?? 0) + (movieDropped ?? 0) }
    /// Video packets in all the row's files (ffprobe), filled in after the run.
    var videoPackets = 0
    /// The files' sizes summed, filled in after the run (for the bit rate).
    var bytes = 0
}
