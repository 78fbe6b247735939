extension CaptureDevice {
    /// Makes a virtual camera and adds it to discovery, for tests and demos.
    ///
    /// ```swift
    /// var config = VirtualCameraConfiguration(name: "Test Camera")
    /// config.sizes = [.init(width: 320, height: 240)]
    /// let camera = try CaptureDevice.makeVirtualCamera(config)
    /// defer { CaptureDevice.removeVirtualDevice(camera) }
    /// ```
    public static func makeVirtualCamera(_ configuration: VirtualCameraConfiguration) throws(CaptureError) -> CaptureDevice {
        try register(VirtualCameraBackend(configuration: configuration))
    }

    /// Makes a virtual microphone playing a sine tone and adds it to discovery.
    public static func makeVirtualMicrophone(_ configuration: VirtualMicrophoneConfiguration) throws(CaptureError) -> CaptureDevice {
        try register(VirtualMicrophoneBackend(configuration: configuration))
    }

    private static func register(_ backend: any DeviceBackend) throws(CaptureError) -> CaptureDevice {
        try VirtualDeviceProvider.shared.add(backend)
        guard let device = DeviceRegistry.shared.devices().first(where: { $0.backend === backend }) else {
            throw CaptureError(.internalError, "virtual device \(backend.descriptor.uniqueID) did not appear in discovery")
        }
        return device
    }

    /// Removes a virtual device made with ``makeVirtualCamera(_:)`` or ``makeVirtualMicrophone(_:)``
    /// from discovery. A session using it keeps its stream until reconfigured.
    public static func removeVirtualDevice(_ device: CaptureDevice) {
        guard device.isVirtual else { return }
        VirtualDeviceProvider.shared.remove(uniqueID: device.uniqueID)
        DeviceRegistry.shared.forget(device.uniqueID)
    }

    /// Unplugs a virtual device: it stops delivering and sessions using it are interrupted, as
    /// with a USB camera pulled out. Throws `.invalidArgument` for hardware devices.
    public func simulateDisconnect() throws(CaptureError) {
        try virtualConnection().set(false)
    }

    /// Plugs a virtual device back in after ``simulateDisconnect()``. With `formats`, it comes
    /// back offering only those (as another camera under the same name, or a driver that
    /// returned with fewer formats, would): a session whose format is not among them stays
    /// interrupted and posts `.resumeFailed`.
    public func simulateReconnect(offering formats: [Format]? = nil) throws(CaptureError) {
        try virtualConnection().set(true, offering: formats)
    }

    private func virtualConnection() throws(CaptureError) -> VirtualConnection {
        if let camera = backend as? VirtualCameraBackend { return camera.connection }
        if let microphone = backend as? VirtualMicrophoneBackend { return microphone.connection }
        throw .invalidArgument("\(localizedName) is not a virtual device; only virtual devices can simulate unplugging")
    }
}
