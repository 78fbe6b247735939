/// One row of `stream-1080p`: a way of encoding the raw 1080p30 YUYV input and the WAV once to
/// H.264 + AAC and publishing it over RTMP, with or without recording the same packets to a
/// `.mov` — CaptureKit in-process, or ffmpeg as a child process.
protocol StreamJob: Sendable {
    /// The row label.
    var label: String { get }
    /// "CaptureKit" or the peer's command name (``Measurement/tool``).
    var tool: String { get }
    /// The movie the job records beside the stream, nil when it only streams; removed before
    /// each run, probed and removed after it. Pairs the row with the ffmpeg row it is compared
    /// to (the one that records too, or the one that does not).
    var recordingPath: String? { get }
    /// Streams (and records) once and measures it.
    func run(scratchDirectory: String) throws -> StreamRun
}
