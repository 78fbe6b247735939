extension CaptureDevice {
    /// A device plugged in or gone (the `AVCaptureDeviceWasConnected` and
    /// `AVCaptureDeviceWasDisconnected` notifications).
    public enum ConnectionEvent: Sendable {
        /// The device appeared (a microphone plugged in, a sound-server source loaded).
        case connected(CaptureDevice)
        /// The device went away; sessions using it are interrupted.
        case disconnected(CaptureDevice)
    }

    /// Plug and unplug events from now on, for every backend that can see them (the sound
    /// server's sources). Making the stream starts watching: discovery runs once so that
    /// backends connect to what they watch.
    ///
    /// ```swift
    /// for await event in CaptureDevice.connectionEvents {
    ///     if case .connected(let device) = event { print("new: \(device.localizedName)") }
    /// }
    /// ```
    public static var connectionEvents: AsyncStream<ConnectionEvent> {
        let stream = DeviceConnectionHub.shared.makeStream()
        _ = DeviceRegistry.shared.devices()
        return stream
    }

    /// The sound server's source called `name` (as `pactl list sources` names it), e.g. a
    /// microphone a user picked by name. Throws `.deviceNotFound` when no server runs or it has
    /// no such source — never a device that would record silence.
    public static func soundServerSource(named name: String) throws(CaptureError) -> CaptureDevice {
        let uniqueID = PulseSourceBackend.uniqueIDPrefix + name
        guard let device = DeviceRegistry.shared.devices().first(where: { $0.uniqueID == uniqueID }) else {
            throw CaptureError(.deviceNotFound, "no sound server source named \(name)", deviceID: uniqueID)
        }
        return device
    }
}
