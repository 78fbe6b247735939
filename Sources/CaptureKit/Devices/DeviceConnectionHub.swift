import Synchronization

/// Fans hot-plug changes out to ``CaptureDevice/connectionEvents()`` subscribers. Two sources
/// feed it: a watched device directory (cameras: on each change it compares the hardware
/// devices present with those present before), and backends that are told rather than watch
/// (a sound server's subscription events, through `post`). Both update one record of what is
/// present, so a device is announced once whichever source notices it first.
///
/// The hub knows no backend: the layer that assembles the built-in backends
/// (`Discovery/BuiltInDevices.swift`) says what to watch and which providers post.
final class DeviceConnectionHub: Sendable {
    /// Starts a watch that calls its argument after each change, or nil when watching is
    /// impossible (connection events then come from posting backends only).
    typealias Watch = @Sendable (_ changed: @escaping @Sendable () -> Void) -> (any DeviceWatch)?

    /// The devices present, by unique ID, as last announced.
    private let present = Mutex<[String: CaptureDevice]>([:])
    private let watching = WatchSlot()
    private let registry: DeviceRegistry
    private let watch: Watch
    private let invalidate: @Sendable () -> Void
    private let hardware: @Sendable () -> [String: CaptureDevice]
    /// The subscribers; the watch runs while there are any.
    private let subscribers: Broadcast<CaptureDevice.ConnectionEvent>

    /// A hub that runs `watch` while anyone subscribes; `hardware` lists the devices present by
    /// unique ID after `invalidate` has made discovery look again; `registry` gives a posting
    /// backend's device.
    init(registry: DeviceRegistry, watch: @escaping Watch, invalidate: @escaping @Sendable () -> Void,
         hardware: @escaping @Sendable () -> [String: CaptureDevice]) {
        self.registry = registry
        self.watch = watch
        self.invalidate = invalidate
        self.hardware = hardware
        subscribers = Broadcast(whenEmpty: { [watching] in watching.stop() })
    }

    func subscribe() -> AsyncStream<CaptureDevice.ConnectionEvent> {
        let now = hardware()
        if !subscribers.hasStreams { present.withLock { $0 = now } }
        let stream = subscribers.makeStream()
        if !watching.isRunning, let monitor = watch({ [weak self] in self?.rescan() }) {
            watching.keep(monitor)
        }
        return stream
    }

    enum Change: Sendable { case connected, disconnected }

    /// Reports that `backend`'s device came or went; called from the backend's own thread, which
    /// never waits for subscribers.
    func post(_ change: Change, _ backend: any DeviceBackend) {
        let device = registry.device(for: backend)
        let event = present.withLock { present -> CaptureDevice.ConnectionEvent? in
            let known = present[device.uniqueID] === device
            switch change {
            case .connected where !known:
                present[device.uniqueID] = device
                return .connected(device)
            case .disconnected where known:
                present[device.uniqueID] = nil
                return .disconnected(device)
            default:
                return nil
            }
        }
        if let event { subscribers.yield(event) }
    }

    /// Compares what is present with what was, and tells every subscriber the difference.
    func rescan() {
        invalidate()
        let now = hardware()
        let events = present.withLock { present -> [CaptureDevice.ConnectionEvent] in
            var events: [CaptureDevice.ConnectionEvent] = []
            for (id, device) in present.sorted(by: { $0.key < $1.key }) where now[id] !== device { events.append(.disconnected(device)) }
            for (id, device) in now.sorted(by: { $0.key < $1.key }) where present[id] !== device { events.append(.connected(device)) }
            present = now
            return events
        }
        for event in events { subscribers.yield(event) }
    }
}

/// A running watch for devices coming and going (an inotify watch of `/dev`), until stopped.
protocol DeviceWatch: Sendable {
    /// Ends the watch; no change is reported after it returns.
    func stop()
}

/// The hub's running watch, shared with its subscribers' broadcast, which stops it when the
/// last subscriber leaves.
private final class WatchSlot: Sendable {
    private let monitor = Mutex<(any DeviceWatch)?>(nil)

    var isRunning: Bool { monitor.withLock { $0 != nil } }

    /// Keeps `watch` running, or stops it when another subscriber's watch got there first.
    func keep(_ watch: any DeviceWatch) {
        let extra = monitor.withLock { monitor -> (any DeviceWatch)? in
            guard monitor == nil else { return watch }
            monitor = watch
            return nil
        }
        extra?.stop()
    }

    func stop() {
        monitor.withLock { monitor -> (any DeviceWatch)? in
            defer { monitor = nil }
            return monitor
        }?.stop()
    }
}
