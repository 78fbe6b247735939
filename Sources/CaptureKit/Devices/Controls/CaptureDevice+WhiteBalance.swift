extension CaptureDevice {
    /// How white balance is chosen (`AVCaptureDevice.WhiteBalanceMode`).
    public enum WhiteBalanceMode: String, Sendable, Hashable, CaseIterable {
        /// Fixed at ``setWhiteBalanceTemperature(_:)``'s value.
        case locked
        /// The camera adjusts continuously.
        case continuousAutoWhiteBalance
    }

    /// Whether `mode` can be set: continuous needs the automatic white balance control; a
    /// camera with only a temperature control is always locked.
    public func isWhiteBalanceModeSupported(_ mode: WhiteBalanceMode) -> Bool {
        switch mode {
        case .continuousAutoWhiteBalance: return control(for: .autoWhiteBalance) != nil
        case .locked: return control(for: .autoWhiteBalance) != nil || control(for: .whiteBalanceTemperature) != nil
        }
    }

    /// Sets the white balance mode. Requires ``lockForConfiguration()``.
    public func setWhiteBalanceMode(_ mode: WhiteBalanceMode) throws(CaptureError) {
        try requireConfigurationLock()
        guard isWhiteBalanceModeSupported(mode) else { throw unsupported("white balance mode \(mode.rawValue)") }
        // Locked on a camera without the automatic control is what it already is.
        guard control(for: .autoWhiteBalance) != nil else { return }
        try setRole(.autoWhiteBalance, mode == .continuousAutoWhiteBalance ? 1 : 0, "white balance mode \(mode.rawValue)")
    }

    /// The colour temperatures (kelvin) the device can be locked to, or nil.
    public var whiteBalanceTemperatureRange: ClosedRange<Int64>? {
        control(for: .whiteBalanceTemperature).map { $0.minimum...$0.maximum }
    }

    /// Locks white balance at `kelvin`. Requires ``lockForConfiguration()``.
    public func setWhiteBalanceTemperature(_ kelvin: Int64) throws(CaptureError) {
        try requireConfigurationLock()
        // Checked before leaving automatic white balance, which a failure would otherwise undo.
        guard whiteBalanceTemperatureRange != nil else { throw unsupported("a white balance temperature") }
        try setWhiteBalanceMode(.locked)
        try setRole(.whiteBalanceTemperature, kelvin, "a white balance temperature")
    }
}
