/// A backend whose device has controls (V4L2 cameras). Its control list is the one source of
/// what a device can be set to: backends without this conformance have no controls at all.
protocol CameraControlBackend: DeviceBackend {
    /// The controls as the driver reports them now.
    var cameraControls: [CaptureDevice.Control] { get }
    /// The current value of `control`.
    func value(of control: CaptureDevice.Control) throws(CaptureError) -> Int64
    /// Changes `control`.
    func setValue(_ value: Int64, of control: CaptureDevice.Control) throws(CaptureError)
}
