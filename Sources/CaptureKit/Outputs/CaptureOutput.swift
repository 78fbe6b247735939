import Synchronization

/// Where a session sends media (`AVCaptureOutput`). Use one of the concrete outputs:
/// ``CaptureVideoDataOutput``, ``CaptureAudioDataOutput``.
public class CaptureOutput: @unchecked Sendable, Hashable {
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

    func setConnections(_ connections: [CaptureConnection]) { links.withLock { $0.connections = connections } }

    // MARK: What subclasses provide

    /// The media the output consumes.
    var acceptedMediaTypes: Set<MediaType> { [] }

    /// Takes one sample. Runs on the device's thread: must not block.
    func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {}

    /// The device skipped samples before the next one. Runs on the device's thread.
    func deviceDidDrop(count: Int, from connection: CaptureConnection) {}

    public static func == (lhs: CaptureOutput, rhs: CaptureOutput) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
