/// A peer tool's command doing the same job as a CaptureKit case (from
/// `shared/tools/anchor-bench/commands.txt`), and how many frames it goes through.
struct PeerCommand: Sendable {
    /// The row label.
    var label: String
    /// The executable's name, looked up on `PATH`.
    var command: String
    var arguments: [String]
    var frames: Int
    /// The Debian package that provides ``command`` (for the "not installed" note).
    var package: String

    /// Runs the command `runs` times and keeps the run with the median CPU time (a single run
    /// of a short job swings by tens of percent on a shared machine), or returns nil when the
    /// tool is not installed.
    func measure(runs: Int, scratchDirectory: String) throws -> Measurement? {
        guard let executable = ChildProcess.locate(command) else { return nil }
        var results: [ChildProcess.Result] = []
        for _ in 0..<max(1, runs) {
            results.append(try ChildProcess.run(executable, arguments, scratchDirectory: scratchDirectory))
        }
        let median = results.sorted { $0.cpuSeconds < $1.cpuSeconds }[results.count / 2]
        return Measurement(label: label, tool: command, frames: frames, delivered: nil, dropped: nil, unaccounted: nil,
                           wallSeconds: median.wallSeconds, cpuSeconds: median.cpuSeconds,
                           peakRSSBytes: median.peakRSSBytes, peakRSSScope: "child", cpuRatio: nil)
    }
}
