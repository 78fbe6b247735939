import Foundation
import Glibc

/// A private temporary folder for one capture-bench run (inputs of 1 GiB and more), removed
/// when the run ends.
struct ScratchDirectory {
    let path: String

    /// Makes `capture-bench.XXXXXX` under `$TMPDIR` (or /tmp).
    static func make() throws -> ScratchDirectory {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/capture-bench.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchError("cannot make a scratch folder in \(base): \(String(cString: strerror(errno)))")
        }
        return ScratchDirectory(path: String(cString: made))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
