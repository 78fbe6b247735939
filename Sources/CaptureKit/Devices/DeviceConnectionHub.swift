import Dispatch
import Synchronization

/// Fans device plug and unplug events out to every `CaptureDevice.connectionEvents` stream.
/// Backends post from their own threads (a sound server's loop thread); events are resolved to
/// devices and delivered from one serial queue, in order, so a poster never waits.
final class DeviceConnectionHub: Sendable {
    static let shared = DeviceConnectionHub()

    enum Kind: Sendable { case connected, disconnected }

    private struct Listeners {
        var streams: [Int: AsyncStream<CaptureDevice.ConnectionEvent>.Continuation] = [:]
        var nextID = 0
    }

    private let listeners = Mutex(Listeners())
    private let queue = DispatchQueue(label: "CaptureKit.deviceConnections")

    func makeStream() -> AsyncStream<CaptureDevice.ConnectionEvent> {
        let (stream, continuation) = AsyncStream<CaptureDevice.ConnectionEvent>.makeStream()
        let id = listeners.withLock { listeners -> Int in
            listeners.nextID += 1
            listeners.streams[listeners.nextID] = continuation
            return listeners.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Reports that `backend`'s device came or went.
    func post(_ kind: Kind, _ backend: any DeviceBackend) {
        queue.async { [self] in
            let device = DeviceRegistry.shared.device(for: backend)
            let event: CaptureDevice.ConnectionEvent = kind == .connected ? .connected(device) : .disconnected(device)
            for stream in listeners.withLock({ Array($0.streams.values) }) { stream.yield(event) }
        }
    }
}
