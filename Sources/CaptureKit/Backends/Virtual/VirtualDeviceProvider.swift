import Synchronization

/// The built-in "Virtual Camera" and "Virtual Microphone", plus any virtual devices made with
/// `CaptureDevice.makeVirtualCamera(_:)` / `makeVirtualMicrophone(_:)`.
final class VirtualDeviceProvider: DeviceProvider {
    static let shared = VirtualDeviceProvider()

    private let devices: Mutex<[any DeviceBackend]>

    private init() {
        var builtIn: [any DeviceBackend] = []
        // The built-in configurations are valid by construction.
        if let camera = try? VirtualCameraBackend(configuration: VirtualCameraConfiguration(name: "Virtual Camera")) {
            builtIn.append(camera)
        }
        if let microphone = try? VirtualMicrophoneBackend(configuration: VirtualMicrophoneConfiguration(name: "Virtual Microphone")) {
            builtIn.append(microphone)
        }
        devices = Mutex(builtIn)
    }

    /// A unique ID made from a device name: lower case, runs of other characters as '-'.
    static func slug(_ name: String) -> String {
        let words = name.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.isEmpty ? "virtual" : words.joined(separator: "-")
    }

    func backends() -> [any DeviceBackend] { devices.withLock { $0 } }

    func add(_ backend: any DeviceBackend) throws(CaptureError) {
        try devices.withLock { (devices) throws(CaptureError) in
            guard !devices.contains(where: { $0.descriptor.uniqueID == backend.descriptor.uniqueID }) else {
                throw .invalidArgument("a device with unique ID \(backend.descriptor.uniqueID) already exists")
            }
            devices.append(backend)
        }
    }

    func remove(uniqueID: String) {
        devices.withLock { $0.removeAll { $0.descriptor.uniqueID == uniqueID } }
    }
}
