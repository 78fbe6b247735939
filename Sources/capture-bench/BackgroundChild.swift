import CaptureKit
import Foundation
import Glibc

/// A child process that runs beside a benchmark until it is stopped — a server, or a client that
/// holds a stream open — and is measured by no row: unlike ``ChildProcess/run(_:_:scratchDirectory:name:outputPath:)``
/// nothing waits for it to end, and its CPU is neither this process's nor a measured child's.
final class BackgroundChild {
    /// What it runs, for messages ("python3", "ffmpeg").
    let name: String
    /// Where its stdout and stderr go.
    let logPath: String
    private var pid: pid_t?

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout and stderr appended to
    /// `logPath`; throws when it cannot start.
    init(_ executable: String, _ arguments: [String], logPath: String) throws {
        name = (executable as NSString).lastPathComponent
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // The environment is passed explicitly, as ChildProcess does.
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }

    deinit { stop() }

    /// Whether it has exited (it is then reaped, and ``stop()`` does nothing).
    var hasExited: Bool {
        guard let pid else { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        self.pid = nil
        return true
    }

    /// The last line it logged, to say why it failed.
    var lastLogLine: String? {
        (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(whereSeparator: \.isNewline).last.map(String.init)
    }

    /// Stops it with SIGTERM and reaps it; SIGKILL when it has not exited after 3 s.
    func stop() {
        guard let pid else { return }
        self.pid = nil
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = MediaTime.now.value + 3_000_000_000
        var killed = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if !killed, MediaTime.now.value > deadline {
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(5_000)
        }
    }
}
