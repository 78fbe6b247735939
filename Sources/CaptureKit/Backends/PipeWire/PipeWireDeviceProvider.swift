internal import CPipeWire
import Dispatch
import Foundation
import Synchronization

/// PipeWire's cameras for discovery: every node of media class Video/Source of the user's
/// PipeWire daemon (`$PIPEWIRE_REMOTE`, else `$XDG_RUNTIME_DIR/pipewire-0`), listed with
/// libpipewire through the `CPipeWire` shim. Nothing is tried when there is no socket.
///
/// With the camera route ``CaptureDevice/CameraRoute/portal``, the connections come from the
/// Camera portal instead (``CameraPortal``): the cameras it shows this application once access
/// was granted — now or by a decision the desktop kept — and none before.
///
/// One camera, one device: a node that PipeWire's V4L2 monitor made of a `/dev/video*` node
/// this process can open itself is left out, since the V4L2 backend lists that camera already
/// (directly, with its controls); set `CAPTUREKIT_PIPEWIRE_CAMERAS=all` to list it as well.
/// Test sources and libcamera's cameras, which have no V4L2 node to open, are listed. Through
/// the portal every camera it shows is listed (the V4L2 backend lists nothing then).
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
        /// The connection the listing and the monitor are of.
        var remote: PipeWireRemote?
        /// The Camera portal's answer, as far as this process knows it.
        var portalAuthorization = CaptureDevice.AuthorizationStatus.notDetermined
        /// Whether a portal connection was refused since access was last asked for: discovery
        /// does not ask the portal again until ``requestPortalAccess()``.
        var portalRefused = false
        /// The session bus whose portal the two above are of.
        var portalBus: String?
        /// Listings are numbered as they start; the result of one that started before the
        /// listing last applied is stale (a relisting after a node event, overtaken).
        var listingsStarted: UInt64 = 0
        var listingApplied: UInt64 = 0
    }

    private let state = Mutex(State())
    private let reports = Mutex<ConnectionReports?>(nil)
    /// Streams waiting for their node to come back, by stream.
    private let watchers = Mutex<[ObjectIdentifier: (name: String, changed: @Sendable (Bool) -> Void)]>([:])
    /// Where node events are turned into listings, off the monitor's thread.
    private let relisting = DispatchQueue(label: "CaptureKit.pipewire.discovery")
    /// How long one listing may take before the daemon is taken as not answering.
    static let listTimeoutMilliseconds: Int32 = 2000

    func report(to reports: ConnectionReports) { self.reports.withLock { $0 = reports } }

    /// The connection to list and capture through now, nil when there is none to try: the
    /// user's daemon, or on the portal route the portal's until it refused.
    var remote: PipeWireRemote? {
        guard CaptureDevice.cameraRoute == .portal else { return PipeWireRemote.userDaemon }
        return portalState { $0.portalAuthorization == .denied || $0.portalRefused ? nil : .portal }
    }

    /// `body` on the state, whose portal answers are forgotten first when they came from the
    /// portal of another session bus than the one this process would reach now.
    private func portalState<R>(_ body: (inout State) -> R) -> R {
        let bus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        return state.withLock { state in
            if state.portalBus != bus {
                state.portalBus = bus
                state.portalAuthorization = .notDetermined
                state.portalRefused = false
            }
            return body(&state)
        }
    }

    func backends() -> [any DeviceBackend] {
        let remote = remote
        let listing = startListing()
        let cameras = remote.flatMap(list)
        // Another daemon (or none): the monitor of the old one goes, its cameras with it.
        let stale = state.withLock { state -> PipeWireMonitor? in
            guard state.remote != remote || cameras == nil else { return nil }
            state.remote = remote
            defer { state.monitor = nil }
            return state.monitor
        }
        // Released here, outside the lock: closing a monitor joins its thread.
        withExtendedLifetime(stale) {}
        guard let cameras, let remote else {
            _ = update(with: [], listing: listing)
            return []
        }
        let listed = update(with: cameras, listing: listing)
        startMonitor(remote)
        return listed
    }

    /// The cameras listed through `remote` now, nil when it cannot be reached. A portal that
    /// refuses is not asked again until access is asked for.
    func list(through remote: PipeWireRemote) -> [PipeWireCameraInfo]? {
        var cameras: UnsafeMutablePointer<ck_pw_camera>?
        var count = 0
        let result: Int32
        do throws(CaptureError) {
            // The portal's connection shows its cameras once WirePlumber has granted them: when
            // the portal says there is one, the listing waits for it to be announced.
            let wait = remote == .portal && (try? CameraPortal.isCameraPresent()) == true ? Self.listTimeoutMilliseconds : 0
            result = try remote.connect { ck_pw_list_cameras($0, Self.listTimeoutMilliseconds, wait, &cameras, &count) }
        } catch {
            portalState { state in
                state.portalRefused = true
                if error.code == .notAuthorized, state.portalAuthorization == .authorized { state.portalAuthorization = .notDetermined }
            }
            CaptureLog.emit(.info, "portal", "no cameras through the Camera portal: \(error.message)")
            return nil
        }
        guard result == 0 else { return nil }
        defer { ck_pw_free(cameras) }
        if remote == .portal { portalState { $0.portalAuthorization = .authorized } }
        let includesV4L2 = remote == .portal || ProcessInfo.processInfo.environment["CAPTUREKIT_PIPEWIRE_CAMERAS"] == "all"
        return (0..<count).compactMap { index in
            guard let camera = cameras?[index] else { return nil }
            let info = PipeWireCameraInfo(camera)
            return includesV4L2 || !info.isReachableDirectly ? info : nil
        }
    }

    /// What the Camera portal answered this process, `.notDetermined` before it was asked
    /// (or before a connection it opened showed that access was granted earlier).
    var portalAuthorization: CaptureDevice.AuthorizationStatus { portalState { $0.portalAuthorization } }

    /// Asks the Camera portal for access (a prompt the first time) and keeps its answer; true
    /// when granted. Blocks its thread until the answer.
    func requestPortalAccess() throws(CaptureError) -> Bool {
        let answer = try CameraPortal.accessCamera()
        portalState { state in
            state.portalAuthorization = answer == .granted ? .authorized : .denied
            state.portalRefused = false
        }
        return answer == .granted
    }

    /// The number of a listing about to start.
    private func startListing() -> UInt64 {
        state.withLock { state in
            state.listingsStarted += 1
            return state.listingsStarted
        }
    }

    /// Makes listing number `listing` current, unless a later one was applied already; returns
    /// the backends present, in the daemon's order.
    private func update(with cameras: [PipeWireCameraInfo], listing: UInt64) -> [any DeviceBackend] {
        var appeared: [PipeWireCameraBackend] = []
        var gone: [PipeWireCameraBackend] = []
        let listed = state.withLock { state -> [any DeviceBackend] in
            guard listing > state.listingApplied else {
                return state.order.filter(Set(state.present.values).contains).compactMap { state.backends[$0] }
            }
            state.listingApplied = listing
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
        let reports = reports.withLock { $0 }
        for backend in gone {
            reports?.post(.disconnected, backend)
            notify(backend.nodeName, present: false)
        }
        for backend in appeared {
            reports?.post(.connected, backend)
            notify(backend.nodeName, present: true)
        }
    }

    private func notify(_ name: String, present: Bool) {
        let waiting = watchers.withLock { $0.values.filter { $0.name == name }.map(\.changed) }
        for changed in waiting { changed(present) }
    }

    private func startMonitor(_ remote: PipeWireRemote) {
        let needed = state.withLock { $0.monitor == nil }
        guard needed, let monitor = try? PipeWireMonitor(remote: remote, changed: { [weak self] id, added in self?.nodeChanged(id, added: added) })
        else { return }
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
            guard let self, let remote = state.withLock({ $0.remote }) else { return }
            let listing = startListing()
            guard let cameras = list(through: remote) else { return }
            _ = update(with: cameras, listing: listing)
        }
    }

    /// Whether the daemon lists a node called `name` now.
    func isPresent(_ name: String) -> Bool { state.withLock { $0.present.values.contains(name) } }

    /// Calls `changed` (on a PipeWire thread) whenever the node `name` goes or comes back,
    /// until ``unwatch(_:)``.
    func watch(_ name: String, for owner: AnyObject, changed: @escaping @Sendable (Bool) -> Void) {
        if let remote = state.withLock({ $0.remote }) { startMonitor(remote) }
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

    init(remote: PipeWireRemote, changed: @escaping @Sendable (UInt32, Bool) -> Void) throws(CaptureError) {
        self.changed = changed
        let user = Unmanaged.passUnretained(self).toOpaque()
        monitor = try remote.connect { fd in
            ck_pw_monitor_open(fd, { user, id, added in
                guard let user else { return }
                Unmanaged<PipeWireMonitor>.fromOpaque(user).takeUnretainedValue().changed(id, added != 0)
            }, user)
        }
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
