import Foundation

/// What one benchmark measured: its rows (CaptureKit cases and the peer) and notes that say
/// how to read them.
struct BenchmarkReport: Encodable, Sendable {
    var name: String
    var summary: String
    var rows: [Measurement]
    var notes: [String]

    /// Sets every row's ``Measurement/cpuRatio`` against the row labelled `reference` (when
    /// that row exists and did any work).
    mutating func setRatios(against reference: String) {
        guard let peer = rows.first(where: { $0.label == reference }), peer.cpuNanosecondsPerFrame > 0 else { return }
        for index in rows.indices {
            rows[index].cpuRatio = rows[index].cpuNanosecondsPerFrame / peer.cpuNanosecondsPerFrame
        }
    }

    /// The report as a text table followed by its notes.
    func renderedTable() -> String {
        var table = TextTable(headers: ["case", "frames", "delivered", "dropped", "wall s", "frames/s",
                                        "CPU ns/frame", "CPU ns/delivery", "CPU ratio", "peak RSS MiB"])
        for row in rows {
            table.add([
                row.label,
                String(row.frames),
                row.delivered.map(String.init) ?? "-",
                row.dropped.map(String.init) ?? "-",
                String(format: "%.3f", row.wallSeconds),
                Self.compact(row.framesPerSecond),
                Self.compact(row.cpuNanosecondsPerFrame),
                row.cpuNanosecondsPerDelivery.map { Self.compact($0) } ?? "-",
                row.cpuRatio.map { Self.ratio($0) } ?? "-",
                row.peakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
            ])
        }
        var lines = ["\(name): \(summary)", table.rendered()]
        lines += notes.map { "  * " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Three significant digits at least, without exponent: per-frame figures span 100 ns to 10 ms.
    private static func compact(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value)
    }

    private static func ratio(_ value: Double) -> String {
        value >= 0.01 ? String(format: "%.3f", value) : String(format: "%.2e", value)
    }
}
