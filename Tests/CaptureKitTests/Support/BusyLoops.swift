import Foundation
import Glibc

/// Busy loops (`/bin/sh -c 'while :; do :; done'`), the load of a machine that has other
/// work, for tests that check what the library promises under any load: started by the test,
/// killed by ``stop()`` (or when the value goes).
final class BusyLoops {
    private let processes: [Process]

    init(count: Int) throws {
        var started: [Process] = []
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "while :; do :; done"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                started.forEach { kill($0.processIdentifier, SIGKILL); $0.waitUntilExit() }
                throw error
            }
            started.append(process)
        }
        processes = started
    }

    /// Kills the loops (SIGKILL, by process id: a child started from a test thread inherits
    /// that thread's blocked signals, SIGTERM among them) and waits for them to go.
    func stop() {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
    }

    deinit { stop() }
}
