extension CaptureDevice {
    /// A device appearing or going away (`AVCaptureDeviceWasConnected` /
    /// `AVCaptureDeviceWasDisconnected`).
    public enum ConnectionEvent: Sendable {
        /// A device appeared: a camera plugged in (its node appeared and could be opened), a
        /// sound-server source loaded.
        case connected(CaptureDevice)
        /// A device went away; sessions using it are interrupted.
        case disconnected(CaptureDevice)
    }
}
