import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

/// The POSIX file operations of ``MediaLibrary``: private files and folders (0600, 0700),
/// exclusive creation, writes and copies followed by `fsync`, renames and directory syncs.
/// Every call retries `EINTR` and throws a `CaptureError` carrying `errno`, the system call
/// and the path (`ENOSPC`, `EDQUOT` and `EFBIG` as `.diskFull`, the rest as `.fileError`).
package enum MediaLibraryFileSystem {
    /// Mode of every file the library creates: read and write for the user only.
    package static let fileMode: mode_t = 0o600
    /// Mode of every folder the library creates.
    package static let directoryMode: mode_t = 0o700

    /// Calls `body` until it does not fail with `EINTR`.
    package static func retrying<T: BinaryInteger>(_ body: () -> T) -> T {
        while true {
            let result = body()
            if result == -1, errno == EINTR { continue }
            return result
        }
    }

    /// The error for a failed system call, from `errno` (or `code`).
    package static func error(_ operation: String, path: String, errno code: Int32 = errno, _ what: String? = nil) -> CaptureError {
        let reason = String(cString: strerror(code))
        let message = what.map { "\($0): \(reason)" } ?? "\(operation) failed: \(reason)"
        let kind: CaptureError.Code = [ENOSPC, EDQUOT, EFBIG].contains(code) ? .diskFull : .fileError
        return CaptureError(kind, message, errno: code, operation: operation, path: path)
    }

    /// Throws the `errno` error when `result` is -1.
    package static func check<T: BinaryInteger>(_ result: T, _ operation: String, path: String, _ what: String? = nil) throws(CaptureError) {
        if result == -1 { throw error(operation, path: path, what) }
    }

    /// Makes `url` and any missing parent folder, each new one 0700; folders that already
    /// exist keep their mode. Throws when a component exists and is not a folder.
    package static func makeDirectory(_ url: URL) throws(CaptureError) {
        let path = url.standardizedFileURL.path
        var current = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, directoryMode) == 0 {
                try check(retrying { chmod(current, directoryMode) }, "chmod", path: current, "cannot make the folder private")
                continue
            }
            // Exists already (EEXIST, or EACCES for a parent we may not write): fine if a folder.
            let failure = errno
            var status = stat()
            guard stat(current, &status) == 0 else { throw error("mkdir", path: current, errno: failure, "cannot create the folder") }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw CaptureError(.fileError, "\(current) is not a folder", operation: "mkdir", path: current)
            }
        }
    }

    /// Opens `path` for writing, creating it 0600 if missing (an existing file is kept).
    package static func touchPrivateFile(_ path: String) throws(CaptureError) {
        let descriptor = retrying { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, fileMode) }
        try check(descriptor, "open", path: path, "cannot create the file")
        Glibc.close(descriptor)
    }

    /// Creates `path`, which must not exist, 0600, and opens it for writing.
    package static func createExclusive(_ path: String) throws(CaptureError) -> Int32 {
        let descriptor = retrying { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode) }
        try check(descriptor, "open", path: path, "cannot create the file")
        // The umask may have taken bits away; never more than 0600 either way.
        try check(retrying { fchmod(descriptor, fileMode) }, "fchmod", path: path, "cannot make the file private")
        return descriptor
    }

    /// Opens an existing file for reading.
    package static func openForReading(_ path: String) throws(CaptureError) -> Int32 {
        let descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        try check(descriptor, "open", path: path, "cannot open the file")
        return descriptor
    }

    /// Writes all of `data` at the descriptor's position.
    package static func write(_ data: Data, to descriptor: Int32, path: String) throws(CaptureError) {
        // Data.withUnsafeBytes rethrows untyped errors: the outcome comes out as a Result.
        let outcome = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, CaptureError> in
            guard var next = raw.baseAddress else { return .success(()) }
            var left = raw.count
            while left > 0 {
                let written = retrying { Glibc.write(descriptor, next, left) }
                if written == -1 { return .failure(error("write", path: path, "cannot write the file")) }
                next += written
                left -= written
            }
            return .success(())
        }
        try outcome.get()
    }

    /// Copies everything readable from `source` to `target` (both at their positions), in 1 MiB
    /// pieces.
    package static func copy(from source: Int32, sourcePath: String, to target: Int32, targetPath: String) throws(CaptureError) {
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = retrying { read(source, buffer, size) }
            try check(count, "read", path: sourcePath, "cannot read the file")
            if count == 0 { return }
            try write(Data(bytesNoCopy: buffer, count: count, deallocator: .none), to: target, path: targetPath)
        }
    }

    /// Sets the file's modification (and access) time to `date` (`futimens`).
    package static func setModificationDate(_ date: Date, of descriptor: Int32, path: String) throws(CaptureError) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let nanoseconds = Int(((date.timeIntervalSince1970 - seconds) * 1e9).rounded(.down))
        let time = timespec(tv_sec: time_t(seconds), tv_nsec: min(max(nanoseconds, 0), 999_999_999))
        let times = [time, time]
        try check(retrying { futimens(descriptor, times) }, "futimens", path: path, "cannot set the file's date")
    }

    /// The file's modification time.
    package static func modificationDate(of status: stat) -> Date {
        Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }

    /// `fstat`.
    package static func status(of descriptor: Int32, path: String) throws(CaptureError) -> stat {
        var status = stat()
        try check(retrying { fstat(descriptor, &status) }, "fstat", path: path, "cannot read the file's size")
        return status
    }

    /// Flushes the file's data and size to the disk (`fsync`).
    package static func sync(_ descriptor: Int32, path: String) throws(CaptureError) {
        try check(retrying { fsync(descriptor) }, "fsync", path: path, "cannot flush the file to disk")
    }

    /// Closes a descriptor of a file that was written; a failed close means lost data.
    package static func close(_ descriptor: Int32, path: String) throws(CaptureError) {
        // Linux releases the descriptor even when close fails (also with EINTR): never retry.
        if Glibc.close(descriptor) == -1, errno != EINTR { throw error("close", path: path, "cannot finish writing the file") }
    }

    /// Flushes a folder's entries (a rename or unlink inside it) to the disk.
    package static func syncDirectory(_ path: String) throws(CaptureError) {
        let descriptor = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        try check(descriptor, "open", path: path, "cannot open the folder")
        defer { Glibc.close(descriptor) }
        try sync(descriptor, path: path)
    }

    /// Renames `source` to `target` (same file system).
    package static func rename(_ source: String, to target: String) throws(CaptureError) {
        try check(retrying { Glibc.rename(source, target) }, "rename", path: target, "cannot move \(source) into place")
    }

    /// Removes a file; a missing file is not an error.
    package static func remove(_ path: String) throws(CaptureError) {
        if retrying({ unlink(path) }) == -1, errno != ENOENT { throw error("unlink", path: path, "cannot remove the file") }
    }

    /// Removes a file, ignoring failures (clean-up after another error).
    package static func removeQuietly(_ path: String) {
        _ = retrying { unlink(path) }
    }

    /// The names in a folder (without `.` and `..`), or the error that prevents listing it.
    package static func contents(of path: String) throws(CaptureError) -> [String] {
        guard let directory = opendir(path) else { throw error("opendir", path: path, "cannot list the folder") }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw error("readdir", path: path, "cannot list the folder") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }
}
