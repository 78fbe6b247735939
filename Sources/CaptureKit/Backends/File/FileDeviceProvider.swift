import Synchronization

/// The file-backed devices made with `CaptureDevice.makeFileDevices(contentsOf:options:)`,
/// for discovery.
final class FileDeviceProvider: DeviceProvider {
    static let shared = FileDeviceProvider()

    private let devices = Mutex<[any DeviceBackend]>([])

    func backends() -> [any DeviceBackend] { devices.withLock { $0 } }

    /// Adds all of `backends` or, when one's unique ID is among `taken` (the devices present
    /// elsewhere) or already added, none.
    func add(_ backends: [any DeviceBackend], taken: Set<String>) throws(CaptureError) {
        try devices.withLock { (devices) throws(CaptureError) in
            let ids = devices.map(\.descriptor.uniqueID)
            for backend in backends where taken.contains(backend.descriptor.uniqueID) || ids.contains(backend.descriptor.uniqueID) {
                throw .invalidArgument("a device with unique ID \(backend.descriptor.uniqueID) already exists; remove it or pass another FileDeviceOptions.uniqueID")
            }
            devices.append(contentsOf: backends)
        }
    }

    func remove(uniqueID: String) {
        devices.withLock { $0.removeAll { $0.descriptor.uniqueID == uniqueID } }
    }
}
