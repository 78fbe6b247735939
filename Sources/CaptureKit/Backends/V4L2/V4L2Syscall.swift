import Glibc

/// The one way V4L2 code makes a system call: retries `EINTR` (a signal arriving during a
/// blocking call is not a failure), reports `EAGAIN` as "would block" to the callers that
/// expect it, and turns every other failure into a ``CaptureError`` that names the operation
/// (`VIDIOC_S_FMT`) and the device node.
enum V4L2Syscall {
    /// How often a call interrupted by signals is retried before giving up; a storm longer
    /// than this is a program sending signals in a loop, not a device problem.
    static let maximumInterruptions = 10_000

    /// Runs `call` (which returns -1 and sets `errno` on failure) until it is not interrupted.
    /// Returns its result, or nil when it failed with `EAGAIN` and `allowWouldBlock` is set.
    @discardableResult
    static func perform(_ operation: String, path: String, allowWouldBlock: Bool = false,
                        _ call: () -> Int32) throws(CaptureError) -> Int32? {
        var interruptions = 0
        while true {
            let result = call()
            if result != -1 { return result }
            let code = errno
            if code == EINTR {
                interruptions += 1
                if interruptions < maximumInterruptions { continue }
                throw CaptureError(.systemCallFailed, "\(operation) on \(path) was interrupted by signals \(interruptions) times in a row",
                                   errno: code, operation: operation, path: path)
            }
            if code == EAGAIN && allowWouldBlock { return nil }
            throw error(errno: code, operation: operation, path: path)
        }
    }

    /// The error a failed V4L2 call on `path` means, with a message that says what to do.
    static func error(errno code: Int32, operation: String, path: String) -> CaptureError {
        switch code {
        case EBUSY:
            let holder = V4L2ProcessFinder.holders(of: path).first.map { " (pid \($0.pid), \($0.name))" } ?? ""
            return CaptureError(.deviceBusy, "\(path) is in use by another process\(holder); close the other camera application",
                                errno: code, operation: operation, path: path)
        case EACCES, EPERM:
            return CaptureError(.notAuthorized,
                                "no permission to open \(path): add your user to the 'video' group (sudo usermod -aG video $USER) and log in again",
                                errno: code, operation: operation, path: path)
        case ENODEV, ENXIO, ENOENT:
            return CaptureError(.deviceDisconnected, "\(path) is gone (the camera was unplugged or its driver unloaded)",
                                errno: code, operation: operation, path: path)
        case ENOMEM:
            return CaptureError(.outOfMemory, "the driver of \(path) could not allocate memory", errno: code, operation: operation, path: path)
        case EINVAL:
            return CaptureError(.notSupported, "\(path) does not support \(operation) with these arguments",
                                errno: code, operation: operation, path: path)
        default:
            return CaptureError(.systemCallFailed, "\(operation) failed on \(path)", errno: code, operation: operation, path: path)
        }
    }
}
