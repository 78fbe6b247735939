import Synchronization

/// Where one device's samples go: the enabled connections and their outputs. Swapped as a
/// whole at commit, read once per sample on the device thread (a short lock, no allocation).
final class DeviceRoute: Sendable {
    private let links = Mutex<[CaptureConnection]>([])

    func set(_ connections: [CaptureConnection]) { links.withLock { $0 = connections } }

    func deliver(_ sample: SampleBuffer) {
        let connections = links.withLock { $0 }
        for connection in connections where connection.isEnabled && connection.mediaType == sample.mediaType {
            connection.output?.receive(sample, from: connection)
        }
    }

    func deviceDropped(count: Int) {
        let connections = links.withLock { $0 }
        for connection in connections where connection.isEnabled {
            connection.output?.deviceDidDrop(count: count, from: connection)
        }
    }
}
