import Synchronization

/// Discovery across all providers. Keeps one `CaptureDevice` per unique ID so settings made on
/// a device (its active format) are seen by everyone who discovers it again.
final class DeviceRegistry: Sendable {
    static let shared = DeviceRegistry(providers: [V4L2DeviceProvider.shared, VirtualDeviceProvider.shared, FileDeviceProvider.shared])

    private let providers: [any DeviceProvider]
    private let known = Mutex<[String: CaptureDevice]>([:])

    init(providers: [any DeviceProvider]) {
        self.providers = providers
    }

    /// Every device present now: hardware first, virtual devices last.
    func devices() -> [CaptureDevice] {
        let backends = providers.flatMap { $0.backends() }
        let devices = known.withLock { known in
            backends.map { backend in
                let id = backend.descriptor.uniqueID
                if let device = known[id], device.backend === backend { return device }
                let device = CaptureDevice(backend: backend)
                known[id] = device
                return device
            }
        }
        return devices.filter { !$0.isVirtual } + devices.filter(\.isVirtual)
    }
}
