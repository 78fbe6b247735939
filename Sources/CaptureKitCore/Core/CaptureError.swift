
import Glibc


/// The one error type of CaptureKit: a code to switch on, a message a person can read, and
/// the context that produced it (the C error number, the operation, the device, the file).
///
/// ```swift
/// do {
///     try session.startRunning()
/// } catch where error.code == .deviceBusy {
///     print("close the other camera app: \(error)")
/// }
/// ```
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for code to switch on.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A call was made in a state that does not allow it (see `CaptureSession.State`).
        case invalidState
        /// An argument is out of range or of the wrong kind.
        case invalidArgument
        /// No device with that identifier, or none of that kind.
        case deviceNotFound
        /// The device is used by another session or process.
        case deviceBusy
        /// The device went away.
        case deviceDisconnected
        /// A device setting was changed without `lockForConfiguration()`.
        case deviceNotLockedForConfiguration
        /// The device or output does not support the format, frame rate or preset asked for.
        case unsupportedFormat
        /// The device has no such control (torch, zoom, focus point…); check the matching
        /// `is…Supported` first.
        case notSupported
        /// The session cannot use that preset with its current inputs.
        case unsupportedPreset
        /// The input or output cannot be added (already added, wrong media, or a conflict).
        case cannotAddInput
        /// The output cannot be added (already added to this or another session).
        case cannotAddOutput
        /// The connection cannot be added: its input or output is not in the session, the output
        /// does not take its media, or the output already has a connection for that media.
        case cannotAddConnection
        /// The cameras' formats together need more than the bus they share carries (two USB 2
        /// cameras streaming uncompressed 1080p); the message names the bus and what each
        /// camera needs. Choose a compressed format or a smaller size for one of them.
        case insufficientBandwidth
        /// The user may not use the device (permissions of the device node).
        case notAuthorized
        /// A pixel or sample conversion failed.
        case conversionFailed
        /// A system call failed; `errno` says why.
        case systemCallFailed
        /// A file could not be written or read.
        case fileError
        /// The file is not media FFmpeg can read, or lacks what was asked for (no video stream,
        /// no decoder for its codec).
        case unsupportedFile
        /// The file's data is damaged: it could be opened, but reading or decoding failed.
        case corruptFile
        /// The disk (or the file size limit) is full, or free space fell below
        /// `minFreeDiskSpaceLimit`.
        case diskFull
        /// A recording reached `maxRecordedDuration` (its file is complete).
        case maximumDurationReached
        /// A recording reached `maxRecordedFileSize` (its file is complete).
        case maximumFileSizeReached
        /// A recording ended because its session stopped running (its file is complete).
        case sessionStopped
        /// A connection to a server (or from a caller, for a listener) could not be made: the
        /// host does not resolve, refuses, does not answer, or answers with something that is
        /// not the protocol. The message names the URL with its secrets redacted.
        case connectionFailed
        /// An established connection broke: the server went away, stalled, or closed it.
        case connectionLost
        /// Memory could not be allocated.
        case outOfMemory
        /// An internal invariant failed. Please report it.
        case internalError
    }

    /// What went wrong.
    public var code: Code
    /// One line a person can act on.
    public var message: String
    /// The C `errno` value, when a system call failed.
    public var errno: Int32?
    /// The operation that failed (`"VIDIOC_S_FMT"`, `"sws_scale"`).
    public var operation: String?
    /// The device involved, by unique ID.
    public var deviceID: String?
    /// The file involved.
    public var path: String?
    /// For errors that end a recording: whether the file is complete and playable anyway, as
    /// `AVErrorRecordingSuccessfullyFinishedKey` says (a recording stopped by its maximum
    /// duration is an "error" whose file is fine).
    public var recordingSuccessfullyFinished = false

    /// Makes an error; prefer the named constructors below inside the library.
    public init(_ code: Code, _ message: String, errno: Int32? = nil, operation: String? = nil,
                deviceID: String? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.operation = operation
        self.deviceID = deviceID
        self.path = path
    }

    public var description: String {
        var text = message
        if let operation { text += " [\(operation)]" }
        if let errno { text += " (errno \(errno): \(String(cString: strerror(errno))))" }
        if let deviceID { text += " device=\(deviceID)" }
        if let path { text += " path=\(path)" }
        return text
    }

    package static func invalidState(_ message: String) -> CaptureError { CaptureError(.invalidState, message) }
    package static func invalidArgument(_ message: String) -> CaptureError { CaptureError(.invalidArgument, message) }
    package static func internalError(_ message: String) -> CaptureError { CaptureError(.internalError, message) }
}
