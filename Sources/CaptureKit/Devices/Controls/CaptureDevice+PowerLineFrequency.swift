extension CaptureDevice {
    /// The mains frequency the camera avoids flicker for (V4L2 `power_line_frequency`).
    public enum PowerLineFrequency: String, Sendable, Hashable, CaseIterable {
        /// No flicker filter.
        case disabled
        /// Avoids the flicker of lights on 50 Hz mains (Europe, most of Asia and Africa).
        case hz50
        /// Avoids the flicker of lights on 60 Hz mains (the Americas, parts of Asia).
        case hz60
        /// The camera detects the mains frequency itself.
        case auto

        /// Its value in V4L2's menu (`enum v4l2_power_line_frequency`).
        var controlValue: Int64 {
            switch self {
            case .disabled: return 0
            case .hz50: return 1
            case .hz60: return 2
            case .auto: return 3
            }
        }
    }

    /// Whether the camera can avoid flicker at `frequency`.
    public func isPowerLineFrequencySupported(_ frequency: PowerLineFrequency) -> Bool {
        control(for: .powerLineFrequency)?.menuItems.contains { $0.value == frequency.controlValue } ?? false
    }

    /// Sets the mains frequency. Requires ``lockForConfiguration()``.
    public func setPowerLineFrequency(_ frequency: PowerLineFrequency) throws(CaptureError) {
        try requireConfigurationLock()
        guard isPowerLineFrequencySupported(frequency) else { throw unsupported("power line frequency \(frequency.rawValue)") }
        try setRole(.powerLineFrequency, frequency.controlValue, "power line frequency")
    }
}
