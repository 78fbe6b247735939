import Synchronization

/// Where a session sends media (`AVCaptureOutput`). Use one of the concrete outputs:
/// ``CaptureVideoDataOutput``, ``CaptureAudioDataOutput``.
///
/// The class is `open` only so that the previews (`CaptureKitPreview`, a target of its own) can
/// be outputs; its initializer is `package`, so applications cannot subclass it.
open class CaptureOutput: @unchecked Sendable, Hashable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct Links {
        var connections: [CaptureConnection] = []
        weak var session: CaptureSession?
    }

    private let links = Mutex(Links())
    /// Where the hooks below go for an output of another target, which cannot override them
    /// (Swift lets only `open` members be overridden outside their module). Set before the
    /// output is added to a session; weak, because it is the output itself.
    private weak var receiver: (any CaptureOutputReceiver)?

    package init() {}

    /// Makes `receiver` (an output of another target: the output itself) answer the hooks.
    /// Call once, before the output is added to a session.
    package func forward(to receiver: any CaptureOutputReceiver) { self.receiver = receiver }

    /// The connections feeding the output, as of the last committed configuration.
    public var connections: [CaptureConnection] { links.withLock { $0.connections } }

    /// The connection carrying `mediaType`, if any (`connection(with:)`).
    public func connection(with mediaType: MediaType) -> CaptureConnection? {
        connections.first { $0.mediaType == mediaType }
    }

    /// The session the output belongs to.
    package var session: CaptureSession? { links.withLock { $0.session } }

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
    var acceptedMediaTypes: Set<MediaType> { receiver?.acceptedMediaTypes ?? [] }

    /// Takes one sample. Runs on the device's thread: must not block.
    func receive(_ sample: SampleBuffer, from connection: CaptureConnection) { receiver?.receive(sample, from: connection) }

    /// The device skipped samples before the next one. Runs on the device's thread.
    func deviceDidDrop(count: Int, from connection: CaptureConnection) { receiver?.deviceDidDrop(count: count, from: connection) }

    /// Whether the output will look at the pixels of the next frame `connection` brings: a
    /// network camera decodes nothing while no output does. Asked on the device's thread before
    /// every frame, so it must be cheap; true unless an output knows better.
    func wantsPixels(from connection: CaptureConnection) -> Bool { true }

    /// Whether the output encodes (a movie, a stream): a session that commits one opens FFmpeg
    /// in the background (``FFmpeg/prepareInBackground()``).
    var encodes: Bool { false }

    /// Whether the output takes several connections of one media (a composition of cameras);
    /// other outputs take one camera each.
    var takesSeveralConnections: Bool { false }

    /// A device feeding the output went away or came back, each time (``sessionWasInterrupted(_:)``
    /// tells only of the first loss). Runs on the session's control queue.
    func deviceFeedingChanged(_ deviceID: String, isPresent: Bool) {}

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
