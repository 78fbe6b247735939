import Foundation

/// What a ``CaptureStreamOutput`` reports, in order for each destination: it connects, is
/// connected, loses the connection and reconnects (again and again while the server is away),
/// drops frames a slow link cannot carry, and ends. Destinations appear redacted.
public enum StreamEvent: Sendable, Equatable, CustomStringConvertible {
    /// The first connection attempt began (a listener: waiting for its caller).
    case connecting(StreamDestination)
    /// The destination takes the stream; what is sent starts at a keyframe.
    case connected(StreamDestination)
    /// A connection attempt failed, or the connection broke: the next attempt (counting from 1)
    /// follows in `delay`.
    case reconnecting(StreamDestination, attempt: Int, error: CaptureError, delay: MediaTime)
    /// `frames` video frames (with their sound) were not sent, to keep up with a slow link or
    /// while the destination was away; never more than one event a second per destination
    /// (``StreamStatistics/framesDropped`` counts every one).
    case dropped(StreamDestination, frames: Int)
    /// The encode switched to `bitsPerSecond` because a link was congested, or back up after
    /// every link kept up (``CaptureStreamOutput/adaptsBitRate``).
    case bitRateChanged(Int)
    /// The destination is done: the session stopped (`error` nil), or it gave up after its
    /// last reconnection attempt.
    case ended(StreamDestination, error: CaptureError?)
    /// A recording asked for with ``CaptureStreamOutput/startRecording(to:)`` has its first
    /// frame, a keyframe.
    case recordingStarted(URL)
    /// The output's own recording (``CaptureStreamOutput/setRecordingURL(_:)``, or one
    /// ``CaptureStreamOutput/startRecording(to:)`` started) ended: its file is complete unless
    /// `error` says otherwise. The streams go on if it failed.
    case recordingFinished(URL, error: CaptureError?)

    public var description: String {
        switch self {
        case .connecting(let destination): return "connecting to \(destination)"
        case .connected(let destination): return "connected to \(destination)"
        case .reconnecting(let destination, let attempt, let error, let delay):
            return "\(destination): \(error.message); reconnecting (attempt \(attempt)) in \(String(format: "%.2f", delay.seconds)) s"
        case .dropped(let destination, let frames): return "\(destination): dropped \(frames) frame\(frames == 1 ? "" : "s")"
        case .bitRateChanged(let bits): return "video bit rate now \(bits / 1000) kbit/s"
        case .ended(let destination, let error): return "\(destination): ended" + (error.map { ": \($0.message)" } ?? "")
        case .recordingStarted(let url): return "recording \(url.path) started"
        case .recordingFinished(let url, let error): return "recording \(url.path) finished" + (error.map { ": \($0.message)" } ?? "")
        }
    }
}

/// Hears a ``CaptureStreamOutput``'s events on the queue given to
/// ``CaptureStreamOutput/setDelegate(_:queue:)``.
public protocol CaptureStreamOutputDelegate: AnyObject, Sendable {
    /// A destination connected, broke, reconnected, dropped frames or ended, or the recording ended.
    func streamOutput(_ output: CaptureStreamOutput, didReport event: StreamEvent)
}
