/// Exit statuses of CaptureKit's tools, from sysexits.h.
public enum ExitStatus: Int32, Sendable {
    /// Done.
    case success = 0
    /// Failed for a reason none of the others names.
    case failure = 1
    /// EX_USAGE: the command line was wrong.
    case usage = 64
    /// EX_DATAERR: an input that is not a media file the tool can read (corrupt, unsupported).
    case dataError = 65
    /// EX_NOINPUT: an input that is missing, unreadable or not a file.
    case noInput = 66
    /// EX_UNAVAILABLE: a device that is missing, busy, gone or not allowed.
    case unavailable = 69
    /// EX_CANTCREAT: an output that cannot be written (a bad path, a full disk).
    case cannotCreate = 73
}
