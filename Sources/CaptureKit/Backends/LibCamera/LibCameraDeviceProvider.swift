internal import CLibCamera
import Dispatch
import Synchronization

/// libcamera's cameras for discovery, one backend per camera id kept across discoveries (the
/// registry keys devices on it). Nothing is loaded or started on a machine without a media
/// controller device (see ``LibCamera``). Hot-plug: libcamera's `cameraAdded`/`cameraRemoved`
/// are posted as `CaptureDevice.ConnectionEvent`s.
final class LibCameraDeviceProvider: DeviceProvider {
    static let shared = LibCameraDeviceProvider()

    private struct State {
        var backends: [String: LibCameraBackend] = [:]
        var present: Set<String> = []
        var reports: ConnectionReports?
    }
    private let state = Mutex(State())
    /// Yields the cameras libcamera lists once each of its hot-plug changes has been posted.
    private let handled = Broadcast<Set<String>>()

    func backends() -> [any DeviceBackend] { libcameraBackends() }

    /// The cameras libcamera lists now.
    func libcameraBackends() -> [LibCameraBackend] {
        let cameras = LibCamera.cameras()
        return state.withLock { state in
            let listed = cameras.map { info -> LibCameraBackend in
                let id = LibCamera.string(info.id)
                if let kept = state.backends[id] { return kept }
                let made = LibCameraBackend(info)
                state.backends[id] = made
                return made
            }
            state.present = Set(listed.map(\.cameraID))
            return listed
        }
    }

    func report(to reports: ConnectionReports) {
        guard LibCamera.isAvailable else { return }
        state.withLock { $0.reports = reports }
        LibCamera.api.set_hotplug_handler({ _ in
            // libcamera's thread: the comparison (and any backend's first listing) runs elsewhere.
            DispatchQueue.global().async { LibCameraDeviceProvider.shared.camerasChanged() }
        }, nil)
    }

    /// The ids of the cameras libcamera lists, each time one of its hot-plug changes has been
    /// posted: what a test waits on to know the change reached connection events, or was left
    /// out of them.
    func handledChanges() -> AsyncStream<Set<String>> { handled.makeStream() }

    private func camerasChanged() {
        let before = state.withLock { $0.present }
        let now = libcameraBackends()
        let (reports, known) = state.withLock { ($0.reports, $0.backends) }
        guard let reports else { return }
        for backend in now where !before.contains(backend.cameraID) { reports.post(.connected, backend) }
        for id in before.subtracting(now.map(\.cameraID)) {
            if let backend = known[id] { reports.post(.disconnected, backend) }
        }
        handled.yield(Set(now.map(\.cameraID)))
    }
}
