internal import CPipeWire
import Dispatch
import Foundation
import Synchronization

/// PipeWire's cameras for discovery: every node of media class Video/Source of the user's
/// PipeWire daemon (`$PIPEWIRE_REMOTE`, else `$XDG_RUNTIME_DIR/pipewire-0`), listed with
/// libpipewire through the `CPipeWire` shim. Nothing is tried when there is no socket.
///
/// One camera, one device: a node that PipeWire's V4L2 monitor made of a `/dev/video*` node
/// this process can open itself is left out, since the V4L2 backend lists that camera already
/// (directly, with its controls); set `CAPTUREKIT_PIPEWIRE_CAMERAS=all` to list it as well.
/// Test sources and libcamera's cameras, which have no V4L2 node to open, are listed.
///
/// Hot-plug: the registry's node events keep the set current and are posted as
/// `CaptureDevice.ConnectionEvent`s.
final class PipeWireDeviceProvider: DeviceProvider {
    static let shared = PipeWireDeviceProvider()

    private struct State {
        /// One backend per node name, kept across discoveries (the registry keys devices on it).
        var backends: [String: PipeWireCameraBackend] = [:]
        /// Present nodes: registry id → node name.
        var present: [UInt32: String] = [:]
        var order: [String] = []
        var monitor: PipeWireMonitor?
        /// The daemon the listing and the monitor are of (its socket).
        var remote: String?
    }

    private let state = Mutex(State())
    private let hub = Mutex<DeviceConnectionHub?>(nil)
    /// Streams waiting for their node to come back, by stream.
    private let watchers = Mutex<[ObjectIdentifier: (name: String, changed: @Sendable (Bool) -> Void)]>([:])
    /// Where node events are turned into listings, off the monitor's thread.
    private let relisting = DispatchQueue(label: "CaptureKit.pipewire.discovery")
    /// How long one listing may take before the daemon is taken as not answering.
    static let listTimeoutMilliseconds: Int32 = 2000

    func report(to hub: DeviceConnectionHub) { self.hub.withLock { $0 = hub } }

    /// The daemon libpipewire would connect to, nil when there is none to try: what
    /// `$PIPEWIRE_REMOTE` names, else the socket in the runtime folder when it exists.
    static var remote: String? {
        let environment = ProcessInfo.processInfo.environment
        if let remote = environment["PIPEWIRE_REMOTE"], !remote.isEmpty { return remote }
        guard let runtime = environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"] else { return nil }
        let socket = "\(runtime)/pipewire-0"
        return FileManager.default.fileExists(atPath: socket) ? socket : nil
    }

    func backends() -> [any DeviceBackend] {
        let remote = Self.remote
        let cameras = remote == nil ? nil : Self.list()
        // Another daemon (or none): the monitor of the old one goes, its cameras with it.
        let stale = state.withLock { state -> PipeWireMonitor? in
            guard state.remote != remote || cameras == nil else { return nil }
            state.remote = remote
            defer { state.monitor = nil }
            return state.monitor
        }
        // Released here, outside the lock: closing a monitor joins its thread.
        withExtendedLifetime(stale) {}
        guard let cameras else {
            _ = update(with: [])
            return []
        }
        let listed = update(with: cameras)
        startMonitor()
        return listed
    }

    /// The cameras the daemon lists now, nil when it cannot be reached.
    static func list() -> [PipeWireCameraInfo]? {
        var cameras: UnsafeMutablePointer<ck_pw_camera>?
        var count = 0
        guard ck_pw_list_cameras(-1, listTimeoutMilliseconds, &cameras, &count) == 0 else { return nil }
        defer { ck_pw_free(cameras) }
        let includesV4L2 = ProcessInfo.processInfo.environment["CAPTUREKIT_PIPEWIRE_CAMERAS"] == "all"
        return (0..<count).compactMap { index in
            guard let camera = cameras?[index] else { return nil }
            let info = PipeWireCameraInfo(camera)
            return includesV4L2 || !info.isReachableDirectly ? info : nil
        }
    }

    /// Makes the listing current; returns the backends present, in the daemon's order.
    private func update(with cameras: [PipeWireCameraInfo]) -> [any DeviceBackend] {
        var appeared: [PipeWireCameraBackend] = []
        var gone: [PipeWireCameraBackend] = []
        let listed = state.withLock { state -> [any DeviceBackend] in
            let before = Set(state.present.values)
            state.present = [:]
            for camera in cameras {
                state.present[camera.id] = camera.name
                if let backend = state.backends[camera.name] {
                    backend.update(camera)
                } else {
                    state.backends[camera.name] = PipeWireCameraBackend(camera: camera, provider: self)
                }
                if !state.order.contains(camera.name) { state.order.append(camera.name) }
            }
            let now = Set(state.present.values)
            appeared = now.subtracting(before).compactMap { state.backends[$0] }
            gone = before.subtracting(now).compactMap { state.backends[$0] }
            return state.order.filter(now.contains).compactMap { state.backends[$0] }
        }
        post(appeared: appeared, gone: gone)
        return listed
    }

    private func post(appeared: [PipeWireCameraBackend], gone: [PipeWireCameraBackend]) {
        let hub = hub.withLock { $0 }
        for backend in gone {
            hub?.post(.disconnected, backend)
            notify(backend.nodeName, present: false)
        }
        for backend in appeared {
            hub?.post(.connected, backend)
            notify(backend.nodeName, present: true)
        }
    }

    private func notify(_ name: String, present: Bool) {
        let waiting = watchers.withLock { $0.values.filter { $0.name == name }.map(\.changed) }
        for changed in waiting { changed(present) }
    }

    private func startMonitor() {
        let needed = state.withLock { $0.monitor == nil }
        guard needed else { return }
        let monitor = PipeWireMonitor { [weak self] id, added in self?.nodeChanged(id, added: added) }
        state.withLock { state in
            if state.monitor == nil { state.monitor = monitor }
        }
    }

    /// A Video/Source node came or went (the monitor's thread): the listing follows, off it.
    private func nodeChanged(_ id: UInt32, added: Bool) {
        if !added {
            // Gone at once: the node's name is known without asking the daemon.
            let gone = state.withLock { state -> PipeWireCameraBackend? in
                guard let name = state.present.removeValue(forKey: id) else { return nil }
                return state.present.values.contains(name) ? nil : state.backends[name]
            }
            if let gone { post(appeared: [], gone: [gone]) }
            return
        }
        relisting.async { [weak self] in
            guard let self, let cameras = Self.list() else { return }
            _ = update(with: cameras)
        }
    }

    /// Whether the daemon lists a node called `name` now.
    func isPresent(_ name: String) -> Bool { state.withLock { $0.present.values.contains(name) } }

    /// Calls `changed` (on a PipeWire thread) whenever the node `name` goes or comes back,
    /// until ``unwatch(_:)``.
    func watch(_ name: String, for owner: AnyObject, changed: @escaping @Sendable (Bool) -> Void) {
        startMonitor()
        watchers.withLock { $0[ObjectIdentifier(owner)] = (name, changed) }
    }

    func unwatch(_ owner: AnyObject) {
        _ = watchers.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
    }
}

/// The registry's Video/Source node events (``ck_pw_monitor_open``), for as long as it lives.
final class PipeWireMonitor: @unchecked Sendable {
    // Unchecked Sendable: the C monitor is only opened and closed here; its callback state is immutable.
    private let changed: @Sendable (UInt32, Bool) -> Void
    private var monitor: OpaquePointer?

    init(changed: @escaping @Sendable (UInt32, Bool) -> Void) {
        self.changed = changed
        monitor = ck_pw_monitor_open(-1, { user, id, added in
            guard let user else { return }
            Unmanaged<PipeWireMonitor>.fromOpaque(user).takeUnretainedValue().changed(id, added != 0)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { ck_pw_monitor_close(monitor) }
}

extension PipeWireCameraInfo {
    /// Whether the node is a V4L2 camera this process can open itself (`v4l2:/dev/videoN`).
    var isReachableDirectly: Bool {
        guard deviceAPI == "v4l2", objectPath.hasPrefix("v4l2:") else { return false }
        return access(String(objectPath.dropFirst(5)), R_OK | W_OK) == 0
    }
}
