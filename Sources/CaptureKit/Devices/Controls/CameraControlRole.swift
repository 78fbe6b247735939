/// The typed settings a raw control can back: a backend tags each control it reports with the
/// role it plays, and every typed query and setter finds its control by role
/// (``CaptureDevice/control(for:)``), so what the typed API says a device supports is what its
/// control list holds.
enum CameraControlRole: Sendable, Hashable {
    case imageAdjustment(CaptureDevice.ImageAdjustment)
    case exposureMode
    case exposureTime
    case autoWhiteBalance
    case whiteBalanceTemperature
    case continuousAutoFocus
    case autoFocusStart
    case focusPosition
    case zoom
    case powerLineFrequency
    case torch
    case horizontalFlip
    case verticalFlip
}
