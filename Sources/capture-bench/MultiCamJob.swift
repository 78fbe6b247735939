/// One row of `multicam`: N 640x480 30 fps cameras at once, each to a data output and to an
/// H.264 recording, for the benchmark's recorded time — one CaptureKit multi-camera session in
/// this process, or N ffmpeg children.
protocol MultiCamJob: Sendable {
    /// The row label.
    var label: String { get }
    /// "CaptureKit" or the peer's command name (``Measurement/tool``).
    var tool: String { get }
    /// How many cameras it runs at once; pairs the row with the ffmpeg row it is compared to.
    var cameras: Int { get }
    /// The movie of each camera, removed before each run; probed and removed after it.
    var outputPaths: [String] { get }
    /// Runs every camera for `seconds` once and measures it.
    func run(seconds: Double, scratchDirectory: String) throws -> MultiCamRun
}
