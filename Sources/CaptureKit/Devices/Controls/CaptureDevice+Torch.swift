extension CaptureDevice {
    /// The camera's light used as a lamp (`AVCaptureDevice.TorchMode`).
    public enum TorchMode: String, Sendable, Hashable, CaseIterable {
        /// The light is off.
        case off
        /// The light is on (V4L2's flash LED in torch mode).
        case on
        /// The light follows the scene. No V4L2 driver offers this, so never supported.
        case auto
    }

    /// The values of V4L2's flash LED mode menu (`enum v4l2_flash_led_mode`) the torch uses.
    private enum FlashLEDMode {
        static let none: Int64 = 0
        static let torch: Int64 = 2
    }

    /// Whether the device has a torch (`hasTorch`): the same as ``isTorchModeSupported(_:)``
    /// for `.on`.
    public var hasTorch: Bool { isTorchModeSupported(.on) }

    /// Whether `mode` can be set (`isTorchModeSupported(_:)`): `.on` needs a flash LED control
    /// whose menu has its torch mode; `.off` is what every device without one already is; no
    /// V4L2 control turns a light on by the scene, so never `.auto`.
    public func isTorchModeSupported(_ mode: TorchMode) -> Bool {
        switch mode {
        case .off: return true
        case .on: return control(for: .torch)?.menuItems.contains { $0.value == FlashLEDMode.torch } ?? false
        case .auto: return false
        }
    }

    /// Sets the torch. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isTorchModeSupported(_:)``.
    public func setTorchMode(_ mode: TorchMode) throws(CaptureError) {
        try requireConfigurationLock()
        guard isTorchModeSupported(mode) else { throw unsupported("torch mode \(mode.rawValue)") }
        guard control(for: .torch) != nil else { return }
        try setRole(.torch, mode == .on ? FlashLEDMode.torch : FlashLEDMode.none, "torch mode \(mode.rawValue)")
    }
}
