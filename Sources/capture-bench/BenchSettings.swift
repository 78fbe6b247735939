/// What the command line and the run give every benchmark.
struct BenchSettings: Sendable {
    /// Input frames (each benchmark makes its own input of this many frames).
    var frames: Int
    /// Where a benchmark may write its inputs and outputs; removed after the run.
    var scratchDirectory: String
}
