import CommandLineSupport
import Foundation

/// `capture-bench`: runs CaptureKit's benchmarks beside their peer tools and prints the ratios.
@MainActor func main() -> ExitStatus {
    let options: BenchOptions
    do {
        options = try BenchOptions(parsing: Array(CommandLine.arguments.dropFirst()))
    } catch {
        Console.error("\(error.message) (see 'capture-bench --help')")
        return .usage
    }
    if options.showHelp {
        Console.print(BenchOptions.usage)
        return .success
    }
    #if DEBUG
    // Unoptimized code is several times slower on these paths, so its figures would mislead.
    Console.error("warning: this is a debug build; figures are not representative (use scripts/bench.sh)")
    #endif

    let scratch: ScratchDirectory
    do {
        scratch = try ScratchDirectory.make()
    } catch {
        Console.error("\(error)")
        return .failure
    }
    defer { scratch.remove() }
    let settings = BenchSettings(frames: options.frames, scratchDirectory: scratch.path)
    var reports: [BenchmarkReport] = []
    for benchmark in BenchmarkRegistry.selected(options.only) {
        do {
            let report = try benchmark.run(settings)
            reports.append(report)
            if !options.json { Console.print(report.renderedTable()) }
        } catch {
            Console.error("\(benchmark.name): \(error)")
            return .failure
        }
    }
    if options.json {
        do {
            try Console.printJSON(BenchRun(frames: options.frames, benchmarks: reports))
        } catch {
            Console.error("cannot encode the results as JSON: \(error)")
            return .failure
        }
    }
    return .success
}

exit(main().rawValue)
