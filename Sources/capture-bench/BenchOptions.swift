/// The command line of capture-bench, parsed by hand (the package has no argument-parser
/// dependency and needs none for four options).
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

    static var usage: String {
        let names = BenchmarkRegistry.all.map { "  \($0.name.padding(toLength: 16, withPad: " ", startingAt: 0))\($0.summary)" }
        return """
            usage: capture-bench [--frames N] [--only NAME] [--json]

            Runs CaptureKit's benchmarks, each beside the tool people would otherwise use for the
            job (ffmpeg, gst-launch, ...) on the same input in the same run, and prints per case
            the frames, wall time, frames/s, CPU (user+sys) ns per frame, the CPU ratio against the
            peer tool and peak RSS. Build in release first (scripts/bench.sh does both).

              --frames N     input frames per benchmark, \(frameRange.lowerBound)...\(frameRange.upperBound) (default 300)
              --only NAME    run only this benchmark (repeat to run several)
              --json         print the results as JSON
              -h, --help     print this text

            Benchmarks:
            \(names.joined(separator: "\n"))
            """
    }

    init(parsing words: [String]) throws(UsageError) {
        var index = 0
        func value(for name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard index < words.count else { throw UsageError("--\(name) needs a value") }
            defer { index += 1 }
            return words[index]
        }
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "-h" || word == "--help" {
                showHelp = true
                continue
            }
            guard word.hasPrefix("--"), word.count > 2 else {
                throw UsageError("unexpected argument '\(word)'")
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            switch name {
            case "frames":
                let text = try value(for: name, inline: inline)
                guard let number = Int(text), Self.frameRange.contains(number) else {
                    throw UsageError("--frames must be a whole number in \(Self.frameRange.lowerBound)...\(Self.frameRange.upperBound), not '\(text)'")
                }
                frames = number
            case "only":
                let text = try value(for: name, inline: inline)
                guard BenchmarkRegistry.all.contains(where: { $0.name == text }) else {
                    let known = BenchmarkRegistry.all.map(\.name).joined(separator: ", ")
                    throw UsageError("unknown benchmark '\(text)'; known: \(known)")
                }
                only.append(text)
            case "json" where inline == nil:
                json = true
            default:
                throw UsageError("unknown option \(word)")
            }
        }
    }
}
