import Foundation
import Synchronization

/// Fans hot-plug changes out to ``CaptureDevice/connectionEvents()`` subscribers. Two sources
/// feed it: a watched device directory (cameras: on each change it compares the hardware
/// devices present with those present before), and backends that are told rather than watch
/// (a sound server's subscription events, through `post`). Both update one record of what is
/// present, so a device is announced once whichever source notices it first.
final class DeviceConnectionHub: Sendable {
    static let shared = DeviceConnectionHub(directory: "/dev", invalidate: { V4L2DeviceProvider.shared.invalidate() }) {
        Dictionary(DeviceRegistry.shared.devices().filter { !$0.isVirtual }.map { ($0.uniqueID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private struct State {
        var subscribers: [UUID: AsyncStream<CaptureDevice.ConnectionEvent>.Continuation] = [:]
        var monitor: V4L2HotplugMonitor?
        var present: [String: CaptureDevice] = [:]
    }
    private let state = Mutex(State())
    private let directory: String
    private let invalidate: @Sendable () -> Void
    private let hardware: @Sendable () -> [String: CaptureDevice]

    /// A hub watching `directory`; `hardware` lists the devices present by unique ID after
    /// `invalidate` has made discovery look again.
    init(directory: String, invalidate: @escaping @Sendable () -> Void, hardware: @escaping @Sendable () -> [String: CaptureDevice]) {
        self.directory = directory
        self.invalidate = invalidate
        self.hardware = hardware
    }

    func subscribe() -> AsyncStream<CaptureDevice.ConnectionEvent> {
        let (stream, continuation) = AsyncStream<CaptureDevice.ConnectionEvent>.makeStream()
        let id = UUID()
        let present = hardware()
        let needsMonitor = state.withLock { state -> Bool in
            if state.subscribers.isEmpty { state.present = present }
            state.subscribers[id] = continuation
            return state.monitor == nil
        }
        if needsMonitor, let monitor = try? V4L2HotplugMonitor(directory: directory, changed: { [weak self] in self?.rescan() }) {
            let extra = state.withLock { state -> V4L2HotplugMonitor? in
                if state.monitor == nil { state.monitor = monitor; return nil }
                return monitor
            }
            extra?.stop()
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        let monitor = state.withLock { state -> V4L2HotplugMonitor? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.monitor = nil }
            return state.monitor
        }
        monitor?.stop()
    }

    enum Change: Sendable { case connected, disconnected }

    /// Reports that `backend`'s device came or went; called from the backend's own thread, which
    /// never waits for subscribers.
    func post(_ change: Change, _ backend: any DeviceBackend) {
        let device = DeviceRegistry.shared.device(for: backend)
        let (event, subscribers) = state.withLock { state -> (CaptureDevice.ConnectionEvent?, [AsyncStream<CaptureDevice.ConnectionEvent>.Continuation]) in
            let known = state.present[device.uniqueID] === device
            switch change {
            case .connected where !known:
                state.present[device.uniqueID] = device
                return (.connected(device), Array(state.subscribers.values))
            case .disconnected where known:
                state.present[device.uniqueID] = nil
                return (.disconnected(device), Array(state.subscribers.values))
            default:
                return (nil, [])
            }
        }
        guard let event else { return }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Compares what is present with what was, and tells every subscriber the difference.
    func rescan() {
        invalidate()
        let now = hardware()
        let (events, subscribers) = state.withLock { state -> ([CaptureDevice.ConnectionEvent], [AsyncStream<CaptureDevice.ConnectionEvent>.Continuation]) in
            var events: [CaptureDevice.ConnectionEvent] = []
            for (id, device) in state.present.sorted(by: { $0.key < $1.key }) where now[id] !== device { events.append(.disconnected(device)) }
            for (id, device) in now.sorted(by: { $0.key < $1.key }) where state.present[id] !== device { events.append(.connected(device)) }
            state.present = now
            return (events, Array(state.subscribers.values))
        }
        for event in events {
            for subscriber in subscribers { subscriber.yield(event) }
        }
    }
}
