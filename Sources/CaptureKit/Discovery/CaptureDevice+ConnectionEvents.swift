extension CaptureDevice {
    /// Device arrivals and removals from now on: cameras noticed by watching `/dev` with inotify,
    /// microphones by the sound server's subscription events. Making the stream runs discovery
    /// once, so that backends connect to what they watch. Stop listening by ending the
    /// iteration (or dropping the stream).
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

extension CaptureDevice {
    /// Why camera nodes that exist were left out of discovery: one error per node that could
    /// not be opened (`.notAuthorized` naming the `video` group, `.deviceBusy`, …), from the
    /// latest scan. Empty when every node was usable.
    public static var discoveryErrors: [CaptureError] {
        _ = DeviceRegistry.shared.devices()
        return V4L2DeviceProvider.shared.openFailures.sorted { $0.key < $1.key }.map(\.value)
    }
}
