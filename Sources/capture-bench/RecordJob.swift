/// One row of `record-1080p`: a way of turning the raw 1080p30 YUYV input and the WAV into an
/// H.264 + AAC `.mov` — CaptureKit in-process, or a peer tool as a child process.
protocol RecordJob: Sendable {
    /// The row label.
    var label: String { get }
    /// "CaptureKit" or the peer's command name (``Measurement/tool``).
    var tool: String { get }
    /// The x264 keyframe interval in frames, which pairs the row with the ffmpeg row it is
    /// compared to.
    var keyframeInterval: Int { get }
    /// The movie the job writes; removed before each run, probed and removed after it.
    var outputPath: String { get }
    /// Records the movie once and measures it.
    func run(scratchDirectory: String) throws -> RecordRun
}
