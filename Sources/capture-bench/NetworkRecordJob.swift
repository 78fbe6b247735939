/// One row of `network-record-720p`: recording N network cameras at once to MP4 as the camera
/// sent them (no decode, no encode) for the benchmark's recorded time — CaptureKit's sessions in
/// this process, or N ffmpeg children.
protocol NetworkRecordJob: Sendable {
    /// The row label.
    var label: String { get }
    /// "CaptureKit" or the peer's command name (``Measurement/tool``).
    var tool: String { get }
    /// How many cameras it records at once; pairs the row with the ffmpeg row it is compared to.
    var cameras: Int { get }
    /// The movie of each camera, removed before each run; probed and removed after it.
    var outputPaths: [String] { get }
    /// Records every camera from `url` for `seconds` once and measures it.
    func run(url: String, seconds: Int, scratchDirectory: String) throws -> NetworkRecordRun
}
