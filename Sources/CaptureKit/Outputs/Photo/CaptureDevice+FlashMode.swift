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

    /// The flash modes photos from this device can use. No backend exposes a flash or torch
    /// control yet (V4L2's `V4L2_CID_FLASH_LED_MODE` will map here), so this is `[.off]`.
    var supportedPhotoFlashModes: [FlashMode] { [.off] }

    /// Whether the device has a flash to report in EXIF.
    var hasPhotoFlash: Bool { supportedPhotoFlashModes.contains(.on) }
}
