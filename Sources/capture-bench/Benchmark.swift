/// One benchmark: runs a CaptureKit job and the peer tool's equivalent on the same input in the
/// same run, and reports both. Add new ones to ``BenchmarkRegistry``.
protocol Benchmark: Sendable {
    /// The name `--only` selects it by (`delivery-1080p`).
    var name: String { get }
    /// One line for `--help`.
    var summary: String { get }
    /// Prepares the input, measures every case and the peer, and cleans up after itself.
    func run(_ settings: BenchSettings) throws -> BenchmarkReport
}
