import Synchronization

/// Where one device's samples go: the connections and their outputs. Swapped as a whole at
/// commit, read once per sample on the device thread (a short lock, no allocation). Outputs are
/// held strongly here (the session's configuration holds them anyway) so the hot path takes no
/// weak reference.
final class DeviceRoute: Sendable {
    private struct Link: Sendable {
        let connection: CaptureConnection
        let output: CaptureOutput
    }

    private let links = Mutex<[Link]>([])

    func set(_ connections: [CaptureConnection]) {
        let resolved = connections.compactMap { connection in connection.output.map { Link(connection: connection, output: $0) } }
        links.withLock { $0 = resolved }
    }

    func deliver(_ sample: SampleBuffer) {
        let links = links.withLock { $0 }
        let mediaType = sample.mediaType
        for link in links where link.connection.mediaType == mediaType && link.connection.isEnabled {
            if let audio = sample.audioBuffer { link.connection.levelMeter.measure(audio, at: sample.presentationTimeStamp) }
            link.output.receive(sample, from: link.connection)
        }
    }

    func deviceDropped(count: Int) {
        let links = links.withLock { $0 }
        for link in links where link.connection.isEnabled {
            link.output.deviceDidDrop(count: count, from: link.connection)
        }
    }
}
