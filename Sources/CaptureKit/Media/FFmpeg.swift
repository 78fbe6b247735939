internal import CFFmpeg
import Glibc

/// The one place FFmpeg return codes become `CaptureError`s: every libav* call that returns an
/// error code goes through ``check(_:_:code:path:)``, which names the call and keeps errno.
enum FFmpeg {
    /// Returns `result` when it is not negative, otherwise throws with FFmpeg's message.
    @discardableResult
    static func check(_ result: Int32, _ operation: String, code: CaptureError.Code = .internalError,
                      path: String? = nil) throws(CaptureError) -> Int32 {
        guard result < 0 else { return result }
        throw error(result, operation, code: code, path: path)
    }

    /// The error for a negative FFmpeg return code. `AVERROR(errno)` codes keep their errno, and
    /// ENOSPC/EDQUOT become a file error that says the disk is full.
    static func error(_ result: Int32, _ operation: String, code: CaptureError.Code = .internalError,
                      path: String? = nil) -> CaptureError {
        let errnoValue = -result > 0 && -result < 4096 ? -result : nil
        var effectiveCode = code
        if let errnoValue, [ENOSPC, EDQUOT, EFBIG, EACCES, EROFS, ENOENT, EIO].contains(errnoValue) { effectiveCode = .fileError }
        return CaptureError(effectiveCode, "\(operation) failed: \(message(result))", errno: errnoValue, operation: operation, path: path)
    }

    /// FFmpeg's text for an error code.
    static func message(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            ck_av_strerror(code, buffer.baseAddress, 256)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// Call before using libav*: keeps FFmpeg's own logging to real errors (it prints to stderr,
    /// which belongs to the application). Runs once.
    static func prepare() { _ = quietLogging }
    private static let quietLogging: Void = av_log_set_level(AV_LOG_ERROR)

    static let eof = ck_averror_eof()
    static let again = ck_averror_eagain()
    static let noTimestamp = ck_nopts_value()
}

