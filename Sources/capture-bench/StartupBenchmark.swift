import Foundation

/// `startup`: how long listing the cameras takes from a cold command line — `capture devices`
/// (the release build beside capture-bench) against the tools people list cameras with:
/// `v4l2-ctl --list-devices`, `gst-device-monitor-1.0 Video/Source` and `ffmpeg -sources v4l2`.
/// Each runs `runs` times, one after the other, its output discarded; the row is the run with
/// the median wall time (start-up is what is measured, so wall time is the figure).
struct StartupBenchmark: Benchmark {
    let name = "startup"
    let summary = "capture devices wall time from a cold start (median of 20) vs v4l2-ctl, gst-device-monitor and ffmpeg -sources listing cameras"

    static let runs = 20
    /// The target for `capture devices` on a machine without cameras.
    static let targetSeconds = 0.030

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let scratch = settings.scratchDirectory
        var rows: [Measurement] = []
        var notes = ["every row: the run with the median wall time of \(Self.runs), output to /dev/null; CPU is that run's (user+sys)"]
        let capture = ChildProcess.captureExecutable
        if access(capture, X_OK) == 0 {
            rows.append(try Self.measure("CaptureKit capture devices", tool: "CaptureKit", executable: capture, ["devices"], scratch: scratch))
        } else {
            notes.append("no capture executable beside capture-bench (\(capture)): build it in release (scripts/bench.sh does)")
        }
        let peers: [(label: String, command: String, arguments: [String], package: String)] = [
            ("v4l2-ctl --list-devices", "v4l2-ctl", ["--list-devices"], "v4l-utils"),
            ("gst-device-monitor-1.0 Video/Source", "gst-device-monitor-1.0", ["Video/Source"], "gstreamer1.0-plugins-base-apps"),
            ("ffmpeg -hide_banner -sources v4l2", "ffmpeg", ["-hide_banner", "-sources", "v4l2"], "ffmpeg"),
        ]
        for peer in peers {
            guard let executable = ChildProcess.locate(peer.command) else {
                notes.append("\(peer.command) is not installed (apt-get install \(peer.package)): no row")
                continue
            }
            do {
                rows.append(try Self.measure(peer.label, tool: peer.command, executable: executable, peer.arguments, scratch: scratch))
            } catch {
                // v4l2-ctl and ffmpeg end with an error status when there is no camera at all.
                notes.append("\(peer.label): \(error); no row")
            }
        }
        if let ours = rows.first(where: { $0.tool == "CaptureKit" }) {
            notes.append(String(format: "capture devices: %.1f ms wall (target <= %.0f ms: %@)", ours.wallSeconds * 1000, Self.targetSeconds * 1000,
                                ours.wallSeconds <= Self.targetSeconds ? "met" : "NOT met"))
            for row in rows where row.tool != "CaptureKit" {
                notes.append(String(format: "%@: %.1f ms wall, %.2fx capture devices' time", row.label, row.wallSeconds * 1000,
                                    ours.wallSeconds > 0 ? row.wallSeconds / ours.wallSeconds : 0))
            }
        }
        var report = BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
        report.setRatios(against: "CaptureKit capture devices")
        return report
    }

    /// Runs `executable` ``runs`` times; the run with the median wall time.
    private static func measure(_ label: String, tool: String, executable: String, _ arguments: [String], scratch: String) throws -> Measurement {
        var results: [ChildProcess.Result] = []
        for _ in 0..<runs { results.append(try ChildProcess.run(executable, arguments, scratchDirectory: scratch)) }
        let median = results.sorted { $0.wallSeconds < $1.wallSeconds }[results.count / 2]
        return Measurement(label: label, tool: tool, frames: 1, delivered: nil, dropped: nil, unaccounted: nil,
                           wallSeconds: median.wallSeconds, cpuSeconds: median.cpuSeconds,
                           peakRSSBytes: median.peakRSSBytes, peakRSSScope: "child", cpuRatio: nil)
    }
}
