/// Frame ages (capture timestamp → arrival at the consumer) of one run, in nanoseconds.
struct V4L2FrameAges: Sendable {
    private(set) var samples: [Int64] = []

    mutating func append(_ age: Int64) { samples.append(age) }

    var count: Int { samples.count }

    /// The value at `fraction` of the sorted samples (nearest rank), nil when empty.
    func percentile(_ fraction: Double) -> Int64? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// "median 12.3 ms, p99 45.6 ms over 150 frames".
    var summary: String {
        guard let median = percentile(0.5), let p99 = percentile(0.99) else { return "no frames" }
        return "median \(Self.milliseconds(median)) ms, p99 \(Self.milliseconds(p99)) ms over \(count) frames"
    }

    static func milliseconds(_ nanoseconds: Int64) -> String {
        let tenths = (Double(nanoseconds) / 100_000).rounded() / 10
        return String(tenths)
    }
}
