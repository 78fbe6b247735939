import CaptureKit
import Foundation
import Glibc

/// Runs a peer tool as a child process and measures it: `posix_spawn` then `wait4`, whose
/// `rusage` is the child's own (CPU and peak RSS), unlike `RUSAGE_CHILDREN`, whose `ru_maxrss`
/// is the largest of all children so far.
enum ChildProcess {
    /// How a child ran.
    struct Result {
        var wallSeconds: Double
        var cpuSeconds: Double
        var peakRSSBytes: Int
    }

    /// Where CaptureKit's own `capture` is: beside this benchmark (scripts/bench.sh builds both
    /// in release). It may be missing; check with `access(_, X_OK)`.
    static var captureExecutable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("capture").path
    }

    /// The absolute path of `command` on `PATH`, or nil when it is not installed.
    static func locate(_ command: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(command)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs as ``run(_:_:scratchDirectory:name:outputPath:)``, under `/usr/bin/time` as a small parent, and
    /// takes the job's peak RSS from what `time` reports: a child spawned by this process
    /// starts with this process's resident size as the floor of its `ru_maxrss` (glibc spawns
    /// with the parent's memory until `exec`), one forked by `time` with only `time`'s few
    /// hundred KiB. Nil when `time` is not installed.
    static func runUnderSmallParent(_ executable: String, _ arguments: [String], scratchDirectory: String) throws -> Result? {
        guard let time = locate("time") else { return nil }
        let report = "\(scratchDirectory)/maxrss-\(getpid())-\(MediaTime.now.value).txt"
        defer { unlink(report) }
        var result = try run(time, ["-f", "%M", "-o", report, executable] + arguments, scratchDirectory: scratchDirectory,
                             name: (executable as NSString).lastPathComponent)
        guard let text = try? String(contentsOfFile: report, encoding: .utf8),
              let kib = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0) }) else {
            throw BenchError("/usr/bin/time reported no peak RSS for \((executable as NSString).lastPathComponent)")
        }
        result.peakRSSBytes = kib * 1024
        return result
    }

    /// Runs `executable` with `arguments`, stdin on /dev/null, stdout on /dev/null or into
    /// `outputPath`, stderr kept in a scratch file so a failure can say why. Throws when it
    /// cannot start or exits non-zero, naming it `name` (default: the executable's file name).
    static func run(_ executable: String, _ arguments: [String], scratchDirectory: String, name: String? = nil,
                    outputPath: String? = nil) throws -> Result {
        let errorPath = "\(scratchDirectory)/stderr-\(getpid())-\(MediaTime.now.value).txt"
        defer { unlink(errorPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        // The environment is passed explicitly: reading the C global `environ` is not
        // concurrency-safe in Swift 6.
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        let name = name ?? (executable as NSString).lastPathComponent
        let start = MediaTime.now.value
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 for \(name) failed: \(String(cString: strerror(errno)))") }
        }
        let wall = Double(MediaTime.now.value - start) / 1e9

        // WIFEXITED/WEXITSTATUS are macros Swift cannot import: low 7 bits are the signal,
        // the next byte the exit code.
        let signal = status & 0x7f
        let code = (status >> 8) & 0xff
        guard signal == 0, code == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8))?
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let how = signal != 0 ? "was killed by signal \(signal)" : "exited with status \(code)"
            throw BenchError("\(name) \(how)\(message.isEmpty ? "" : ": \(message)")")
        }
        return Result(wallSeconds: wall,
                      cpuSeconds: ResourceSnapshot.seconds(usage.ru_utime) + ResourceSnapshot.seconds(usage.ru_stime),
                      peakRSSBytes: usage.ru_maxrss * 1024)
    }

    /// Calls `body` with each line of a started process's standard output (a `Pipe`) and the
    /// monotonic time its chunk arrived, until the process closes it; throws when it then exits
    /// non-zero.
    static func lines(of process: Process, _ body: (Substring, Int64) -> Void) throws {
        guard let reader = (process.standardOutput as? Pipe)?.fileHandleForReading else { return }
        var pending = ""
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            let arrival = MediaTime.now.value
            pending += String(decoding: chunk, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                body(pending[..<newline], arrival)
                pending = String(pending[pending.index(after: newline)...])
            }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(process.executableURL?.lastPathComponent ?? "a child") exited with status \(process.terminationStatus)")
        }
    }
}
