import Foundation
import Testing

/// Kills a `capture` command with SIGKILL as it enters one chosen system call: a real crash, at
/// a moment a test names, with nothing in the library's code to help. strace's fault injection
/// (`-e inject=CALL:signal=KILL:when=N`) sends the signal on the N-th entry of CALL by a thread,
/// before the kernel runs it.
///
/// The moment is "the first `target` call after the first `marker` call (or the first `target`
/// call at all)". Which entry that is, is counted in a rehearsal: the same command traced on a
/// copy of the library, its calls read thread by thread (strace counts per thread and per call).
/// A rehearsal that drifts from the real run makes the crash land elsewhere, which the tests'
/// checks of what the crash left on disk catch.
enum SystemCallCrash {
    /// The strace executable (the `strace` package).
    static var strace: String? {
        ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `capture arguments` with the library at `root` (the arguments' `--root ROOT`) and
    /// kills it on entering the first of the `target` calls (one name per spelling, e.g.
    /// `rename`, `renameat`, `renameat2`) made after the first of the `marker` calls.
    static func run(_ arguments: [String], root: URL, at target: [String], after marker: [String] = []) throws -> CaptureTool.Result {
        let strace = try #require(strace, "strace is installed (scripts/install-deps.sh)")
        let (call, entry) = try #require(try rehearse(arguments, root: root, target: target, marker: marker, strace: strace),
                                         "the rehearsal makes a \(target) call after \(marker.isEmpty ? "its start" : "\(marker)")")
        return try CaptureTool.run(arguments, through: [strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(call)",
                                                       "-e", "inject=\(call):signal=KILL:when=\(entry)"])
    }

    /// The call and its entry number in its thread at which the crash must happen; nil when the
    /// rehearsal made no such call.
    private static func rehearse(_ arguments: [String], root: URL, target: [String], marker: [String],
                                 strace: String) throws -> (call: String, entry: Int)? {
        let copy = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-rehearsal")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: root, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let log = copy.deletingLastPathComponent().appendingPathComponent(copy.lastPathComponent + ".strace")
        defer { try? FileManager.default.removeItem(at: log) }
        let rehearsed = arguments.map { $0 == root.path ? copy.path : $0 }
        let result = try CaptureTool.run(rehearsed, through: [strace, "-f", "-qq", "-o", log.path,
                                                              "-e", "trace=\((target + marker).joined(separator: ","))"])
        try #require(result.status == 0 && !result.wasSignalled, "the rehearsal runs to its end: \(result)")
        // "PID call(args) = result" or "PID call(args <unfinished ...>": an entry; "<... resumed>" is not.
        var entries: [String: Int] = [:]   // "thread call" → entries so far
        // Without a marker, any thread's first target call; with one, the marker's thread's.
        var marked = marker.isEmpty
        var markedThread: String?
        for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
            // strace pads the thread id to five columns: split on the first run of spaces.
            guard let space = line.firstIndex(of: " ") else { continue }
            let rest = line[space...].drop { $0 == " " }
            guard let open = rest.firstIndex(of: "(") else { continue }
            let thread = String(line[..<space]), call = String(rest[..<open])
            let key = "\(thread) \(call)"
            entries[key, default: 0] += 1
            if !marked, marker.contains(call) {
                marked = true
                markedThread = thread
            } else if marked, markedThread == nil || markedThread == thread, target.contains(call) {
                return (call, entries[key]!)
            }
        }
        return nil
    }
}
