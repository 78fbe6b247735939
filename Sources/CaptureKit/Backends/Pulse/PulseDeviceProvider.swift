import Synchronization

/// The sound server's sources for discovery. Connects on first use (and again after the server
/// went away) to the server libpulse finds (``SoundServerAddress``: `$PULSE_SERVER`, else the
/// user's socket, else a system-wide server's) and never starts one. With no server, discovery
/// finds no sound-server device without trying, or after one refused connection (no waiting).
///
/// Hot-plug: the server's subscription events keep the set of present sources current and are
/// posted as `CaptureDevice.ConnectionEvent`s.
final class PulseDeviceProvider: DeviceProvider {
    static let shared = PulseDeviceProvider()

    private struct State {
        var connection: PulseConnection?
        /// One backend per source name, kept across discoveries (the registry keys devices on it).
        var backends: [String: PulseSourceBackend] = [:]
        /// Present sources: server index → name.
        var present: [UInt32: String] = [:]
        /// Discovery order: the default source first, other microphones, then monitors.
        var order: [String] = []
    }

    /// Streams waiting for their source to come back, by stream.
    private let watchers = Mutex<[ObjectIdentifier: (source: String, returned: @Sendable () -> Void)]>([:])

    private let state = Mutex(State())

    /// Where presence changes are posted, once the connection hub exists.
    private let reports = Mutex<ConnectionReports?>(nil)

    func report(to reports: ConnectionReports) { self.reports.withLock { $0 = reports } }

    private func post(_ change: DeviceConnectionHub.Change, _ backends: [PulseSourceBackend]) {
        guard let reports = reports.withLock({ $0 }) else { return }
        for backend in backends { reports.post(change, backend) }
    }

    func backends() -> [any DeviceBackend] {
        guard let connection = currentConnection() else { return [] }
        guard !connection.isLoopThread else { return listed() }
        let server: PulseServerInfo
        let sources: [PulseSourceInfo]
        do {
            server = try connection.serverInfo()
            sources = try connection.sources()
        } catch {
            disconnect(connection)
            return []
        }
        let isDefault = { (source: PulseSourceInfo) in source.name == server.defaultSourceName }
        let ordered = sources.filter(isDefault) + sources.filter { !isDefault($0) && !$0.isMonitor } + sources.filter { !isDefault($0) && $0.isMonitor }
        return state.withLock { state in
            state.present = [:]
            for source in ordered {
                state.present[source.index] = source.name
                if state.backends[source.name] == nil {
                    state.backends[source.name] = PulseSourceBackend(source: source, serverName: server.name, provider: self)
                }
            }
            state.order = ordered.map(\.name)
            return state.order.compactMap { state.backends[$0] }
        }
    }

    private func listed() -> [any DeviceBackend] {
        state.withLock { state in state.order.compactMap { state.backends[$0] } }
    }

    /// Whether the server has a source called `name` now.
    func isPresent(_ name: String) -> Bool {
        state.withLock { state in state.connection?.isAlive == true && state.present.values.contains(name) }
    }

    /// The live connection, for starting a stream; `.deviceDisconnected` when the server is gone.
    func liveConnection(for deviceID: String) throws(CaptureError) -> PulseConnection {
        guard let connection = state.withLock({ $0.connection }), connection.isAlive else {
            throw CaptureError(.deviceDisconnected, "the sound server is not running", deviceID: deviceID)
        }
        return connection
    }

    /// The connection, made now when there is none or the last one died.
    private func currentConnection() -> PulseConnection? {
        if let connection = state.withLock({ $0.connection }), connection.isAlive { return connection }
        // No socket, no server: libpulse is not even loaded up (its context allocates a shared
        // memory pool, which costs time and complains on stderr under a file-size limit).
        guard SoundServerAddress.current().mayBeReachable else { return nil }
        let connection: PulseConnection
        do { connection = try PulseConnection.connect() } catch { return nil }
        let id = ObjectIdentifier(connection)
        connection.observe { [weak self] change in self?.handle(change, from: id) }
        let previous = state.withLock { state -> PulseConnection? in
            // Another server (or the same one restarted): its sources are new devices.
            defer { state = State(connection: connection) }
            return state.connection
        }
        // Released here, off its loop thread (closing a connection joins that thread).
        _ = previous
        return connection
    }

    private func disconnect(_ connection: PulseConnection) {
        let lost = state.withLock { state -> [PulseSourceBackend] in
            guard state.connection === connection else { return [] }
            let lost = state.present.values.compactMap { state.backends[$0] }
            state.present = [:]
            return lost
        }
        post(.disconnected, lost)
    }

    /// Calls `returned` (on the loop thread) whenever the server lists `source` anew, until
    /// ``unwatch(_:)``.
    func watch(_ source: String, for owner: AnyObject, returned: @escaping @Sendable () -> Void) {
        watchers.withLock { $0[ObjectIdentifier(owner)] = (source, returned) }
    }

    func unwatch(_ owner: AnyObject) {
        _ = watchers.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    /// A change the server reported (on the connection's loop thread).
    private func handle(_ change: PulseConnection.Change, from connection: ObjectIdentifier) {
        var connected: [PulseSourceBackend] = []
        var disconnected: [PulseSourceBackend] = []
        state.withLock { state in
            guard let current = state.connection, ObjectIdentifier(current) == connection else { return }
            switch change {
            case .sourceAdded(let source):
                let wasPresent = state.present.values.contains(source.name)
                state.present[source.index] = source.name
                let backend = state.backends[source.name] ?? PulseSourceBackend(source: source, serverName: "sound server", provider: self)
                state.backends[source.name] = backend
                if !state.order.contains(source.name) { state.order.append(source.name) }
                if !wasPresent { connected.append(backend) }
            case .sourceRemoved(let index):
                guard let name = state.present.removeValue(forKey: index) else { return }
                if !state.present.values.contains(name), let backend = state.backends[name] { disconnected.append(backend) }
            case .connectionLost:
                disconnected = state.present.values.compactMap { state.backends[$0] }
                state.present = [:]
            case .serverChanged:
                break
            }
        }
        for backend in connected {
            post(.connected, [backend])
            let waiting = watchers.withLock { $0.values.filter { $0.source == backend.sourceName }.map(\.returned) }
            for returned in waiting { returned() }
        }
        post(.disconnected, disconnected)
    }
}
