import Synchronization

/// Where a session sends media (`AVCaptureOutput`). Use one of the concrete outputs:
/// ``CaptureVideoDataOutput``, ``CaptureAudioDataOutput``.
public class CaptureOutput: @unchecked Sendable, Hashable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct Links {
        var connections: [CaptureConnection] = []
        weak var session: CaptureSession?
    }

    private let links = Mutex(Links())

    init() {}

    /// The connections feeding the output, as of the last committed configuration.
    public var connections: [CaptureConnection] { links.withLock { $0.connections } }

    /// The connection carrying `mediaType`, if any (`connection(with:)`).
    public func connection(with mediaType: MediaType) -> CaptureConnection? {
        connections.first { $0.mediaType == mediaType }
    }

    /// The session the output belongs to.
    var session: CaptureSession? { links.withLock { $0.session } }

    func attach(to session: CaptureSession?) { links.withLock { $0.session = session } }

    /// Claims the output for `session` unless another session has it; atomic, so two sessions
    /// adding one output at once cannot both succeed.
    func reserve(for session: CaptureSession) -> Bool {
        links.withLock { links in
            if let owner = links.session, owner !== session { return false }
            links.session = session
            return true
        }
    }

    func setConnections(_ connections: [CaptureConnection]) { links.withLock { $0.connections = connections } }

    // MARK: What subclasses provide

    /// The media the output consumes.
    var acceptedMediaTypes: Set<MediaType> { [] }

    /// Takes one sample. Runs on the device's thread: must not block.
    func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {}

    /// The device skipped samples before the next one. Runs on the device's thread.
    func deviceDidDrop(count: Int, from connection: CaptureConnection) {}

    /// The session stopped running. Runs on the session's control queue.
    func sessionDidStopRunning() {}

    /// A device feeding the session went away. Runs on the session's control queue.
    func sessionWasInterrupted(_ reason: CaptureSession.InterruptionReason) {}

    /// The session's lost devices are all back (`.interruptionEnded`). Runs on the session's
    /// control queue.
    func sessionInterruptionEnded() {}

    public static func == (lhs: CaptureOutput, rhs: CaptureOutput) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
