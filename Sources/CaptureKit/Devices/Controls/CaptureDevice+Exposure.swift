extension CaptureDevice {
    /// How exposure is chosen (`AVCaptureDevice.ExposureMode`).
    public enum ExposureMode: String, Sendable, Hashable, CaseIterable {
        /// Exposure stays where it is (V4L2's manual exposure, at the current time).
        case locked
        /// Exposure adjusts once and then locks. No V4L2 control does this, so never supported.
        case autoExpose
        /// The camera keeps adjusting exposure (V4L2's auto or aperture-priority exposure).
        case continuousAutoExposure
        /// Exposure is the time set with ``CaptureDevice/setExposureModeCustom(duration:)``
        /// (V4L2's manual exposure).
        case custom
    }

    /// Whether `mode` can be set (`isExposureModeSupported(_:)`): the exposure control's menu
    /// has a value for it.
    public func isExposureModeSupported(_ mode: ExposureMode) -> Bool { exposureMenuValue(for: mode) != nil }

    /// Sets the exposure mode. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isExposureModeSupported(_:)``. `.custom` and `.locked` select manual exposure.
    public func setExposureMode(_ mode: ExposureMode) throws(CaptureError) {
        try requireConfigurationLock()
        guard let value = exposureMenuValue(for: mode) else { throw unsupported("exposure mode \(mode.rawValue)") }
        try setRole(.exposureMode, value, "exposure mode \(mode.rawValue)")
    }

    /// The V4L2 exposure menu value for `mode`: auto (0) or aperture priority (3) for continuous,
    /// manual (1) for custom and locked; nil without an exposure control or that menu item.
    private func exposureMenuValue(for mode: ExposureMode) -> Int64? {
        guard let control = control(for: .exposureMode) else { return nil }
        let values = Set(control.menuItems.map(\.value))
        switch mode {
        case .continuousAutoExposure: return values.contains(0) ? 0 : values.contains(3) ? 3 : nil
        case .custom, .locked: return values.contains(1) ? 1 : nil
        case .autoExpose: return nil
        }
    }

    /// The shortest exposure time, or `.invalid` without manual exposure.
    public var minExposureDuration: MediaTime {
        control(for: .exposureTime).map { Self.exposureDuration(units: max($0.minimum, 1)) } ?? .invalid
    }

    /// The longest exposure time, or `.invalid` without manual exposure.
    public var maxExposureDuration: MediaTime {
        control(for: .exposureTime).map { Self.exposureDuration(units: $0.maximum) } ?? .invalid
    }

    /// The exposure time now (V4L2 counts it in 100 µs units).
    public func exposureDuration() throws(CaptureError) -> MediaTime {
        Self.exposureDuration(units: try value(of: try requireControl(for: .exposureTime, "manual exposure")))
    }

    /// Switches to manual exposure of `duration` (clamped to the device's range). Requires
    /// ``lockForConfiguration()`` (`setExposureModeCustom(duration:iso:)`).
    public func setExposureModeCustom(duration: MediaTime) throws(CaptureError) {
        try requireConfigurationLock()
        let time = try requireControl(for: .exposureTime, "manual exposure")
        try setExposureMode(.custom)
        try setValue(time.nearestValue(to: Int64((duration.seconds * 10_000).rounded())), for: time)
    }

    private static func exposureDuration(units: Int64) -> MediaTime { MediaTime(value: units, timescale: 10_000) }
}
