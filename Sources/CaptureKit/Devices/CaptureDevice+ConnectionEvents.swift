extension CaptureDevice {
    /// A device appearing or going away (`AVCaptureDeviceWasConnected` /
    /// `AVCaptureDeviceWasDisconnected`).
    public enum ConnectionEvent: Sendable {
        /// A camera was plugged in (its node appeared and could be opened).
        case connected(CaptureDevice)
        /// A camera went away.
        case disconnected(CaptureDevice)
    }

    /// Device arrivals and removals from now on, noticed by watching `/dev` with inotify.
    /// Stop listening by ending the iteration (or dropping the stream).
    ///
    /// ```swift
    /// for await event in CaptureDevice.connectionEvents() {
    ///     if case .connected(let camera) = event { print("plugged in: \(camera.localizedName)") }
    /// }
    /// ```
    public static func connectionEvents() -> AsyncStream<ConnectionEvent> {
        DeviceConnectionHub.shared.subscribe()
    }
}
