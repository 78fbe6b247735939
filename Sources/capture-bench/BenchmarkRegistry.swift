/// Every benchmark capture-bench knows, in the order they run. Later benchmarks (encode, jpeg,
/// scan, ...) are added here.
enum BenchmarkRegistry {
    static let all: [any Benchmark] = [
        DeliveryBenchmark(),
        PhotoBenchmark(),
        RecordBenchmark(),
        SegmentBenchmark(),
        StreamBenchmark(),
        NetworkRecordBenchmark(),
        MultiCamBenchmark(.virtual),
        MultiCamBenchmark(.vivid),
        NetworkFrameAgeBenchmark(),
        GlassToGlassBenchmark(),
        ScanBenchmark(),
        MotionBenchmark(),
        WebPreviewBenchmark(),
        AudioCaptureBenchmark(),
        V4L2LatencyBenchmark(),
        PipeWireVividBenchmark(),
        LibCameraVimcBenchmark(),
        ConversionBenchmark(),
        StartupBenchmark(),
        FirstFrameBenchmark(),
    ]

    /// The benchmarks named in `names`, in registry order; all of them when `names` is empty.
    static func selected(_ names: [String]) -> [any Benchmark] {
        names.isEmpty ? all : all.filter { names.contains($0.name) }
    }
}
