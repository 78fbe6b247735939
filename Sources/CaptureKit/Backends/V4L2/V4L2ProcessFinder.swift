import Foundation

/// Finds which processes hold a device node open, as `fuser` does, so a "device busy" error
/// can name the culprit. Only processes of the same user (or all, for root) are visible.
enum V4L2ProcessFinder {
    /// A process holding a file open.
    struct Holder: Sendable, Equatable {
        var pid: Int32
        var name: String
    }

    /// The processes other than this one with `path` open, read from `/proc/*/fd`.
    static func holders(of path: String, procRoot: String = "/proc") -> [Holder] {
        let fileManager = FileManager.default
        guard let entries = try? fileManager.contentsOfDirectory(atPath: procRoot) else { return [] }
        let me = getpid()
        var found: [Holder] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            let fdDirectory = "\(procRoot)/\(entry)/fd"
            guard let fds = try? fileManager.contentsOfDirectory(atPath: fdDirectory) else { continue }
            let holds = fds.contains { fd in
                (try? fileManager.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(fd)")) == path
            }
            guard holds else { continue }
            let name = (try? String(contentsOfFile: "\(procRoot)/\(entry)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            found.append(Holder(pid: pid, name: name))
        }
        return found.sorted { $0.pid < $1.pid }
    }
}
