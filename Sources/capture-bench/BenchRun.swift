/// The whole `--json` document: the settings and each benchmark's report.
struct BenchRun: Encodable {
    var frames: Int
    var benchmarks: [BenchmarkReport]
}
