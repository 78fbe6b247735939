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

    /// Whether an output will look at the next video frame's pixels (see
    /// ``CaptureOutput/wantsPixels(from:)``).
    var wantsPixels: Bool {
        links.withLock { $0 }.contains { $0.connection.mediaType == .video && $0.connection.isEnabled && $0.output.wantsPixels(from: $0.connection) }
    }

    func deliver(_ sample: SampleBuffer) {
        let links = links.withLock { $0 }
        let mediaType = sample.mediaType
        // A frame left undecoded goes only to outputs that want no pixels: one that came to
        // want them since the device asked waits for the next frame, which is decoded.
        let standIn = sample.pixelsAreStandIn
        let receiving = links.lazy.filter {
            $0.connection.mediaType == mediaType && $0.connection.isEnabled && !(standIn && $0.output.wantsPixels(from: $0.connection))
        }
        if let audio = sample.audioBuffer {
            AudioLevelMeter.measure(audio, at: sample.presentationTimeStamp, into: receiving.map(\.connection.levelMeter))
        }
        for link in receiving { link.output.receive(sample, from: link.connection) }
    }

    func deviceDropped(count: Int) {
        let links = links.withLock { $0 }
        for link in links where link.connection.isEnabled {
            link.output.deviceDidDrop(count: count, from: link.connection)
        }
    }
}
