import CommandLineSupport

/// The command line of capture-bench.
struct BenchOptions {
    /// Input frames per benchmark.
    var frames = 300
    /// Names of the benchmarks to run; empty runs them all.
    var only: [String] = []
    /// Print JSON instead of tables.
    var json = false
    /// Print the usage and do nothing else.
    var showHelp = false

    /// The accepted range of `--frames`: each 1080p frame is held in memory (4 MiB) and written
    /// to a scratch file, so the upper bound keeps a run within a few GiB.
    static let frameRange = 1...1000

    /// What capture-bench accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("frames", "N", "input frames per benchmark, \(frameRange.lowerBound)...\(frameRange.upperBound) (default 300)"),
        .value("only", "NAME", "run only this benchmark (repeat to run several)"),
        .flag("json", "print the results as JSON"),
        .flag("help", "print this text (also -h)"),
    ]

    static var usage: String {
        // Padded to the longest name and two spaces: a shorter pad would cut longer names.
        let width = (BenchmarkRegistry.all.map(\.name.count).max() ?? 0) + 2
        let names = BenchmarkRegistry.all.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))\($0.summary)" }
        return """
            usage: capture-bench [--frames N] [--only NAME] [--json]

            Runs CaptureKit's benchmarks, each beside the tool people would otherwise use for the
            job (ffmpeg, gst-launch, ...) on the same input in the same run, and prints per case
            the frames, wall time, frames/s, CPU (user+sys) ns per frame, the CPU ratio against the
            peer tool and peak RSS. Build in release first (scripts/bench.sh does both).

            \(CommandOption.helpText(for: options))

            Benchmarks:
            \(names.joined(separator: "\n"))
            """
    }

    init(parsing words: [String]) throws(UsageError) {
        let arguments = try Arguments(words.map { $0 == "-h" ? "--help" : $0 }, accepting: Self.options)
        if let extra = arguments.positional.first { throw UsageError("unexpected argument '\(extra)'") }
        showHelp = arguments.has("help")
        json = arguments.has("json")
        frames = try arguments.integer("frames", default: frames, in: Self.frameRange)
        for name in arguments.values("only") {
            guard BenchmarkRegistry.all.contains(where: { $0.name == name }) else {
                let known = BenchmarkRegistry.all.map(\.name).joined(separator: ", ")
                throw UsageError("unknown benchmark '\(name)'; known: \(known)")
            }
            only.append(name)
        }
    }
}
