import Synchronization

/// The built-in "Virtual Camera" (facing back), "Virtual Front Camera" and "Virtual
/// Microphone", plus any virtual devices made with `CaptureDevice.makeVirtualCamera(_:)` /
/// `makeVirtualMicrophone(_:)`.
final class VirtualDeviceProvider: DeviceProvider {
    static let shared = VirtualDeviceProvider()

    private let devices: Mutex<[any DeviceBackend]>

    private init() {
        // Wide-angle cameras facing back and front, as an iPhone's, so that ported iOS code
        // (a DiscoverySession for `.builtInWideAngleCamera` at `.back`, a switch to `.front`)
        // finds cameras on a machine without any. The back one comes first: it is the default.
        // The built-in configurations are valid by construction.
        let cameras = [("Virtual Camera", CaptureDevice.Position.back), ("Virtual Front Camera", .front)].compactMap { name, position in
            var configuration = VirtualCameraConfiguration(name: name)
            configuration.deviceType = .builtInWideAngleCamera
            configuration.position = position
            return try? VirtualCameraBackend(configuration: configuration, origin: .standIn)
        }
        let microphone = try? VirtualMicrophoneBackend(configuration: VirtualMicrophoneConfiguration(name: "Virtual Microphone"), origin: .standIn)
        devices = Mutex(cameras + [microphone].compactMap { $0 })
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
