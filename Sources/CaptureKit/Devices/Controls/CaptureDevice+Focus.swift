extension CaptureDevice {
    /// How the lens focuses (`AVCaptureDevice.FocusMode`).
    public enum FocusMode: String, Sendable, Hashable, CaseIterable {
        /// The lens stays where it is (continuous autofocus off, or a set lens position).
        case locked
        /// The lens focuses once and then stays (V4L2's autofocus trigger).
        case autoFocus
        /// The camera keeps focusing (V4L2's continuous autofocus).
        case continuousAutoFocus
    }

    /// Whether `mode` can be set (`isFocusModeSupported(_:)`): continuous needs the continuous
    /// autofocus control, one-shot the autofocus trigger, and locked any of those or a lens
    /// position.
    public func isFocusModeSupported(_ mode: FocusMode) -> Bool {
        switch mode {
        case .continuousAutoFocus: return control(for: .continuousAutoFocus) != nil
        case .autoFocus: return control(for: .autoFocusStart) != nil
        case .locked: return control(for: .continuousAutoFocus) != nil || control(for: .autoFocusStart) != nil || isLockingFocusWithCustomLensPositionSupported
        }
    }

    /// Sets the focus mode. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isFocusModeSupported(_:)``.
    public func setFocusMode(_ mode: FocusMode) throws(CaptureError) {
        try requireConfigurationLock()
        guard isFocusModeSupported(mode) else { throw unsupported("focus mode \(mode.rawValue)") }
        let continuous = control(for: .continuousAutoFocus) != nil
        switch mode {
        case .continuousAutoFocus: try setRole(.continuousAutoFocus, 1, "continuous autofocus")
        // Without continuous autofocus the lens stays where it is: that is locked.
        case .locked: if continuous { try setRole(.continuousAutoFocus, 0, "locked focus") }
        case .autoFocus:
            if continuous { try setRole(.continuousAutoFocus, 0, "one-shot autofocus") }
            try setRole(.autoFocusStart, 1, "one-shot autofocus")
        }
    }

    /// Whether the lens can be locked at a chosen position (`setFocusModeLocked(lensPosition:)`).
    public var isLockingFocusWithCustomLensPositionSupported: Bool { control(for: .focusPosition) != nil }

    /// Whether focus can move smoothly (for video). No V4L2 control asks for that, so false on
    /// every current device.
    public var isSmoothAutoFocusSupported: Bool { false }

    /// Whether focus moves smoothly (`AVCaptureDevice.isSmoothAutoFocusEnabled`). Always false,
    /// since no device supports it (``isSmoothAutoFocusSupported``). AVFoundation raises an
    /// exception when it is set to true on such a device; a property setter cannot throw, so here
    /// setting true keeps the value false and reports a warning through ``CaptureLog``
    /// (ported code that sets it unconditionally keeps running, and the mistake is visible).
    public var isSmoothAutoFocusEnabled: Bool {
        get { false }
        set {
            guard newValue, !isSmoothAutoFocusSupported else { return }
            CaptureLog.emit(.warning, "capturekit", "\(localizedName) does not support smooth autofocus; isSmoothAutoFocusEnabled stays false")
        }
    }

    /// Locks focus at `lensPosition` (0 nearest … 1 farthest, mapped onto the driver's range).
    /// Requires ``lockForConfiguration()``.
    public func setFocusModeLocked(lensPosition: Double) throws(CaptureError) {
        try requireConfigurationLock()
        let position = try requireControl(for: .focusPosition, "a custom lens position")
        if control(for: .continuousAutoFocus) != nil { try setRole(.continuousAutoFocus, 0, "focus mode locked") }
        let clamped = min(1, max(0, lensPosition))
        try setValue(position.nearestValue(to: position.minimum + Int64((Double(position.maximum - position.minimum) * clamped).rounded())), for: position)
    }

    /// The lens position now (0…1), or `.notSupported`.
    public func lensPosition() throws(CaptureError) -> Double {
        let position = try requireControl(for: .focusPosition, "a lens position")
        let value = try self.value(of: position)
        return position.maximum > position.minimum ? Double(value - position.minimum) / Double(position.maximum - position.minimum) : 0
    }
}
