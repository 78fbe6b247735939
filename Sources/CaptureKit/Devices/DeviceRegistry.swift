import Synchronization

/// Discovery across all providers. Keeps one `CaptureDevice` per unique ID so settings made on
/// a device (its active format) are seen by everyone who discovers it again. The built-in set
/// is `DeviceRegistry.shared` (`Discovery/BuiltInDevices.swift`).
final class DeviceRegistry: Sendable {
    /// Where devices come from, in discovery order.
    let providers: [any DeviceProvider]
    private let known = Mutex<[String: CaptureDevice]>([:])

    init(providers: [any DeviceProvider]) {
        self.providers = providers
    }

    /// Every device present now: hardware first, virtual devices last.
    func devices() -> [CaptureDevice] {
        let backends = providers.flatMap { $0.backends() }
        let devices = known.withLock { known in backends.map { Self.device(for: $0, in: &known) } }
        return devices.filter { !$0.isVirtual } + devices.filter(\.isVirtual)
    }

    /// Forgets the device with `uniqueID` (one removed for good, such as a virtual device), so
    /// it and its backend's buffers are not kept for a rediscovery that cannot come.
    func forget(_ uniqueID: String) {
        _ = known.withLock { $0.removeValue(forKey: uniqueID) }
    }

    /// The device of `backend` without asking the providers (safe on a backend's own thread):
    /// the one discovery made, or a new one remembered from now on.
    func device(for backend: any DeviceBackend) -> CaptureDevice {
        known.withLock { Self.device(for: backend, in: &$0) }
    }

    private static func device(for backend: any DeviceBackend, in known: inout [String: CaptureDevice]) -> CaptureDevice {
        let id = backend.descriptor.uniqueID
        if let device = known[id], device.backend === backend { return device }
        let device = CaptureDevice(backend: backend)
        known[id] = device
        return device
    }
}
