extension CaptureDevice {
    /// A picture setting with a numeric range (V4L2's user controls).
    public enum ImageAdjustment: String, Sendable, Hashable, CaseIterable {
        case brightness, contrast, saturation, hue, gain, sharpness, gamma
    }

    /// How white balance is chosen (`AVCaptureDevice.WhiteBalanceMode`).
    public enum WhiteBalanceMode: String, Sendable, Hashable, CaseIterable {
        /// Fixed at ``setWhiteBalanceTemperature(_:)``'s value.
        case locked
        /// The camera adjusts continuously.
        case continuousAutoWhiteBalance
    }

    /// The mains frequency the camera avoids flicker for (V4L2 `power_line_frequency`).
    public enum PowerLineFrequency: String, Sendable, Hashable, CaseIterable {
        case disabled, hz50, hz60, auto

        var controlValue: Int64 {
            switch self {
            case .disabled: return 0
            case .hz50: return 1
            case .hz60: return 2
            case .auto: return 3
            }
        }
    }

    // MARK: Raw controls

    /// Every control the driver has, with ranges and menus; empty for devices without controls
    /// (virtual and file devices).
    public var controls: [Control] { (backend as? any CameraControlBackend)?.cameraControls ?? [] }

    /// The control called `name` (its ``Control/key`` or its driver name, any case).
    public func control(named name: String) -> Control? {
        let key = Control.key(for: name)
        return controls.first { $0.key == key }
    }

    /// The current value of `control`. Wraps VIDIOC_G_EXT_CTRLS.
    public func value(of control: Control) throws(CaptureError) -> Int64 {
        try controlBackend(for: control.name).value(of: control)
    }

    /// The current value of the control called `name`.
    public func controlValue(named name: String) throws(CaptureError) -> Int64 {
        try value(of: try requireControl(named: name))
    }

    /// Sets `control` to `value`. Requires ``lockForConfiguration()``; `.invalidArgument` for a
    /// value the control does not take. Wraps VIDIOC_S_EXT_CTRLS.
    public func setValue(_ value: Int64, for control: Control) throws(CaptureError) {
        try requireLock()
        guard !control.isReadOnly else {
            throw CaptureError(.notSupported, "control '\(control.key)' of \(localizedName) is read-only", deviceID: uniqueID)
        }
        guard control.accepts(value) else {
            throw CaptureError(.invalidArgument, "\(value) is not a value of control \(control)", deviceID: uniqueID)
        }
        try controlBackend(for: control.name).setValue(value, of: control)
    }

    /// Sets the control called `name` from text: a number, `true`/`false`, or a menu item's
    /// name (case-insensitive). Requires ``lockForConfiguration()``.
    public func setControl(named name: String, to text: String) throws(CaptureError) {
        let control = try requireControl(named: name)
        let trimmed = text.lowercased()
        let value: Int64
        if let number = Int64(text) {
            value = number
        } else if control.kind == .boolean, ["true", "on", "yes"].contains(trimmed) {
            value = 1
        } else if control.kind == .boolean, ["false", "off", "no"].contains(trimmed) {
            value = 0
        } else if let item = control.menuItems.first(where: { $0.name.lowercased() == trimmed }) {
            value = item.value
        } else {
            throw CaptureError(.invalidArgument, "'\(text)' is not a value of control \(control)", deviceID: uniqueID)
        }
        try setValue(value, for: control)
    }

    private func requireControl(named name: String) throws(CaptureError) -> Control {
        guard let control = control(named: name) else {
            let known = controls.map(\.key).joined(separator: ", ")
            throw CaptureError(.notSupported, "\(localizedName) has no control '\(name)' (it has: \(known.isEmpty ? "none" : known))", deviceID: uniqueID)
        }
        return control
    }

    private func controlBackend(for what: String) throws(CaptureError) -> any CameraControlBackend {
        guard let backend = backend as? any CameraControlBackend else {
            throw CaptureError(.notSupported, "\(localizedName) has no control '\(what)'", deviceID: uniqueID)
        }
        return backend
    }

    private func requireLock() throws(CaptureError) {
        guard isLockedForConfiguration else {
            throw CaptureError(.deviceNotLockedForConfiguration, "call lockForConfiguration() on \(localizedName) first", deviceID: uniqueID)
        }
    }

    /// The control backing `role`, if the device has it.
    func control(for role: CameraControlRole) -> Control? { controls.first { $0.role == role } }

    private func requireControl(for role: CameraControlRole, _ what: String) throws(CaptureError) -> Control {
        guard let control = control(for: role) else {
            throw CaptureError(.notSupported, "\(localizedName) does not support \(what)", deviceID: uniqueID)
        }
        return control
    }

    /// Sets the control of `role` to `value`, after the lock and support checks.
    func setRole(_ role: CameraControlRole, _ value: Int64, _ what: String) throws(CaptureError) {
        try requireLock()
        try setValue(value, for: try requireControl(for: role, what))
    }

    // MARK: Image adjustments

    /// Whether the device has `adjustment`.
    public func isImageAdjustmentSupported(_ adjustment: ImageAdjustment) -> Bool { control(for: .imageAdjustment(adjustment)) != nil }

    /// The values `adjustment` takes, or nil without it.
    public func imageAdjustmentRange(_ adjustment: ImageAdjustment) -> ClosedRange<Int64>? {
        control(for: .imageAdjustment(adjustment)).map { $0.minimum...$0.maximum }
    }

    /// The current value of `adjustment`; `.notSupported` unless ``isImageAdjustmentSupported(_:)``.
    public func imageAdjustment(_ adjustment: ImageAdjustment) throws(CaptureError) -> Int64 {
        try value(of: try requireControl(for: .imageAdjustment(adjustment), adjustment.rawValue))
    }

    /// Sets `adjustment`. Requires ``lockForConfiguration()``.
    public func setImageAdjustment(_ adjustment: ImageAdjustment, to value: Int64) throws(CaptureError) {
        try setRole(.imageAdjustment(adjustment), value, adjustment.rawValue)
    }

    // MARK: Exposure

    /// Sets the exposure mode. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isExposureModeSupported(_:)``. `.custom` and `.locked` select manual exposure.
    public func setExposureMode(_ mode: ExposureMode) throws(CaptureError) {
        guard isExposureModeSupported(mode), let control = control(for: .exposureMode) else {
            throw CaptureError(.notSupported, "\(localizedName) does not support exposure mode \(mode.rawValue)", deviceID: uniqueID)
        }
        guard let value = Self.exposureMenuValue(for: mode, in: control) else {
            throw CaptureError(.notSupported, "\(localizedName) does not support exposure mode \(mode.rawValue)", deviceID: uniqueID)
        }
        try setValue(value, for: control)
    }

    /// The V4L2 exposure menu value for `mode`: auto (0) or aperture priority (3) for continuous,
    /// manual (1) for custom and locked.
    static func exposureMenuValue(for mode: ExposureMode, in control: Control) -> Int64? {
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
        try requireLock()
        let time = try requireControl(for: .exposureTime, "manual exposure")
        try setExposureMode(.custom)
        let units = Int64(((duration.seconds * 10_000).rounded()))
        let step = max(time.step, 1)
        let clamped = min(time.maximum, max(time.minimum, time.minimum + (units - time.minimum) / step * step))
        try setValue(clamped, for: time)
    }

    static func exposureDuration(units: Int64) -> MediaTime { MediaTime(value: units, timescale: 10_000) }

    // MARK: White balance

    /// Whether `mode` can be set.
    public func isWhiteBalanceModeSupported(_ mode: WhiteBalanceMode) -> Bool {
        switch mode {
        case .continuousAutoWhiteBalance: return control(for: .autoWhiteBalance) != nil
        case .locked: return control(for: .autoWhiteBalance) != nil || control(for: .whiteBalanceTemperature) != nil
        }
    }

    /// Sets the white balance mode. Requires ``lockForConfiguration()``.
    public func setWhiteBalanceMode(_ mode: WhiteBalanceMode) throws(CaptureError) {
        try setRole(.autoWhiteBalance, mode == .continuousAutoWhiteBalance ? 1 : 0, "white balance mode \(mode.rawValue)")
    }

    /// The colour temperatures (kelvin) the device can be locked to, or nil.
    public var whiteBalanceTemperatureRange: ClosedRange<Int64>? {
        control(for: .whiteBalanceTemperature).map { $0.minimum...$0.maximum }
    }

    /// Locks white balance at `kelvin`. Requires ``lockForConfiguration()``.
    public func setWhiteBalanceTemperature(_ kelvin: Int64) throws(CaptureError) {
        if isWhiteBalanceModeSupported(.continuousAutoWhiteBalance) { try setWhiteBalanceMode(.locked) }
        try setRole(.whiteBalanceTemperature, kelvin, "a white balance temperature")
    }

    // MARK: Focus

    /// Whether the lens can be locked at a chosen position (`setFocusModeLocked(lensPosition:)`).
    public var isLockingFocusWithCustomLensPositionSupported: Bool { control(for: .focusPosition) != nil }

    /// Whether focus can move smoothly (for video). No V4L2 control asks for that, so false on
    /// every current device.
    public var isSmoothAutoFocusSupported: Bool { false }

    /// Locks focus at `lensPosition` (0 nearest … 1 farthest, mapped onto the driver's range).
    /// Requires ``lockForConfiguration()``.
    public func setFocusModeLocked(lensPosition: Double) throws(CaptureError) {
        try requireLock()
        let position = try requireControl(for: .focusPosition, "a custom lens position")
        if control(for: .continuousAutoFocus) != nil { try setRole(.continuousAutoFocus, 0, "focus mode locked") }
        let clamped = min(1, max(0, lensPosition))
        try setValue(Self.snap(position.minimum + Int64((Double(position.maximum - position.minimum) * clamped).rounded()), to: position), for: position)
    }

    /// The lens position now (0…1), or `.notSupported`.
    public func lensPosition() throws(CaptureError) -> Double {
        let position = try requireControl(for: .focusPosition, "a lens position")
        let value = try self.value(of: position)
        return position.maximum > position.minimum ? Double(value - position.minimum) / Double(position.maximum - position.minimum) : 0
    }

    /// Applies `mode` through the focus controls (called by ``setFocusMode(_:)`` once checked).
    func applyFocusMode(_ mode: FocusMode) throws(CaptureError) {
        guard controls.contains(where: { $0.role == .continuousAutoFocus || $0.role == .autoFocusStart }) else { return }
        switch mode {
        case .continuousAutoFocus: try setRole(.continuousAutoFocus, 1, "continuous autofocus")
        case .locked: if control(for: .continuousAutoFocus) != nil { try setRole(.continuousAutoFocus, 0, "locked focus") }
        case .autoFocus:
            if control(for: .continuousAutoFocus) != nil { try setRole(.continuousAutoFocus, 0, "one-shot autofocus") }
            try setRole(.autoFocusStart, 1, "one-shot autofocus")
        }
    }

    // MARK: Zoom, torch, power line, flips

    /// The zoom factor now: 1 for a device without zoom.
    public func videoZoomFactor() throws(CaptureError) -> Double {
        guard let zoom = control(for: .zoom) else { return 1 }
        return Self.zoomFactor(value: try value(of: zoom), control: zoom)
    }

    /// The largest zoom factor a zoom control gives: maximum / minimum when the minimum is
    /// positive (UVC cameras count 100…500 for 1×…5×), else 1× per 100 driver units.
    static func maxZoomFactor(for control: Control) -> Double {
        control.minimum > 0 ? Double(control.maximum) / Double(control.minimum) : 1 + Double(control.maximum - control.minimum) / 100
    }

    static func zoomFactor(value: Int64, control: Control) -> Double {
        guard control.maximum > control.minimum else { return 1 }
        return 1 + Double(value - control.minimum) / Double(control.maximum - control.minimum) * (maxZoomFactor(for: control) - 1)
    }

    /// Applies a checked zoom factor through the zoom control (called by ``setVideoZoomFactor(_:)``).
    func applyZoomFactor(_ factor: Double) throws(CaptureError) {
        guard let zoom = control(for: .zoom) else { return }
        let span = Self.maxZoomFactor(for: zoom) - 1
        let fraction = span > 0 ? (factor - 1) / span : 0
        let value = zoom.minimum + Int64((Double(zoom.maximum - zoom.minimum) * fraction).rounded())
        try setValue(Self.snap(value, to: zoom), for: zoom)
    }

    /// Applies a checked torch mode through the flash LED control (called by ``setTorchMode(_:)``).
    func applyTorchMode(_ mode: TorchMode) throws(CaptureError) {
        guard control(for: .torch) != nil else { return }
        try setRole(.torch, mode == .on ? 2 : 0, "torch mode \(mode.rawValue)")
    }

    /// Whether the camera can avoid flicker at `frequency`.
    public func isPowerLineFrequencySupported(_ frequency: PowerLineFrequency) -> Bool {
        control(for: .powerLineFrequency)?.menuItems.contains { $0.value == frequency.controlValue } ?? false
    }

    /// Sets the mains frequency. Requires ``lockForConfiguration()``.
    public func setPowerLineFrequency(_ frequency: PowerLineFrequency) throws(CaptureError) {
        guard isPowerLineFrequencySupported(frequency) else {
            throw CaptureError(.notSupported, "\(localizedName) does not support power line frequency \(frequency.rawValue)", deviceID: uniqueID)
        }
        try setRole(.powerLineFrequency, frequency.controlValue, "power line frequency")
    }

    /// Whether the sensor can mirror its picture left to right.
    public var isHorizontalFlipSupported: Bool { control(for: .horizontalFlip) != nil }
    /// Whether the sensor can flip its picture upside down.
    public var isVerticalFlipSupported: Bool { control(for: .verticalFlip) != nil }

    /// Mirrors the picture in the sensor. Requires ``lockForConfiguration()``.
    public func setHorizontalFlip(_ flipped: Bool) throws(CaptureError) {
        try setRole(.horizontalFlip, flipped ? 1 : 0, "horizontal flip")
    }

    /// Flips the picture upside down in the sensor. Requires ``lockForConfiguration()``.
    public func setVerticalFlip(_ flipped: Bool) throws(CaptureError) {
        try setRole(.verticalFlip, flipped ? 1 : 0, "vertical flip")
    }

    private static func snap(_ value: Int64, to control: Control) -> Int64 {
        let step = max(control.step, 1)
        return min(control.maximum, max(control.minimum, control.minimum + (value - control.minimum + step / 2) / step * step))
    }
}
