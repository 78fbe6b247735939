extension CaptureDevice {
    /// Whether a photo is taken with flash (`AVCaptureDevice.FlashMode`).
    public enum FlashMode: String, Sendable, Hashable, CaseIterable {
        /// Never fire.
        case off
        /// Always fire.
        case on
        /// Fire when the scene is dark.
        case auto
    }

    /// The flash modes photos from this device can use: `[.off]` on every device. A V4L2
    /// camera's flash LED control (`V4L2_CID_FLASH_LED_MODE`) already backs the torch
    /// (``setTorchMode(_:)``); firing it as a flash needs its strobe (`V4L2_CID_FLASH_STROBE`)
    /// timed to the photo's frame, which no backend does.
    var supportedPhotoFlashModes: [FlashMode] { [.off] }

    /// Whether the device has a flash to report in EXIF.
    var hasPhotoFlash: Bool { supportedPhotoFlashModes.contains(.on) }
}
