extension CaptureDevice {
    /// The camera's light used as a lamp (`AVCaptureDevice.TorchMode`).
    public enum TorchMode: String, Sendable, Hashable, CaseIterable {
        case off, on, auto
    }

    /// How the lens focuses (`AVCaptureDevice.FocusMode`).
    public enum FocusMode: String, Sendable, Hashable, CaseIterable {
        case locked, autoFocus, continuousAutoFocus
    }

    /// How exposure is chosen (`AVCaptureDevice.ExposureMode`).
    public enum ExposureMode: String, Sendable, Hashable, CaseIterable {
        case locked, autoExpose, continuousAutoExposure, custom
    }

    /// A point in the picture: (0, 0) top left, (1, 1) bottom right of the unrotated frame.
    public typealias NormalizedPoint = CapturePoint

    /// Whether the device has a torch (`hasTorch`). Every query below reports what the
    /// backend really controls; the virtual devices control none of these, and V4L2 cameras
    /// map them to their V4L2 controls where the driver has them.
    public var hasTorch: Bool { backend.controls.torchModes.contains(.on) }

    /// Whether `mode` can be set (`isTorchModeSupported(_:)`).
    public func isTorchModeSupported(_ mode: TorchMode) -> Bool { mode == .off || backend.controls.torchModes.contains(mode) }

    /// Whether `mode` can be set (`isFocusModeSupported(_:)`).
    public func isFocusModeSupported(_ mode: FocusMode) -> Bool { backend.controls.focusModes.contains(mode) }

    /// Whether `mode` can be set (`isExposureModeSupported(_:)`).
    public func isExposureModeSupported(_ mode: ExposureMode) -> Bool { backend.controls.exposureModes.contains(mode) }

    /// Whether focus can be aimed at a point (`isFocusPointOfInterestSupported`).
    public var isFocusPointOfInterestSupported: Bool { backend.controls.focusPointOfInterest }

    /// Whether exposure can be metered at a point (`isExposurePointOfInterestSupported`).
    public var isExposurePointOfInterestSupported: Bool { backend.controls.exposurePointOfInterest }

    /// The largest zoom factor (`maxAvailableVideoZoomFactor`); 1 for a device without zoom.
    public var maxAvailableVideoZoomFactor: Double { backend.controls.maxZoomFactor }

    /// Sets the torch. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isTorchModeSupported(_:)``.
    public func setTorchMode(_ mode: TorchMode) throws(CaptureError) {
        try requireControl(isTorchModeSupported(mode), "torch mode \(mode.rawValue)")
        try applyTorchMode(mode)
    }

    /// Sets the focus mode. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isFocusModeSupported(_:)``.
    public func setFocusMode(_ mode: FocusMode) throws(CaptureError) {
        try requireControl(isFocusModeSupported(mode), "focus mode \(mode.rawValue)")
        try applyFocusMode(mode)
    }

    /// Aims focus at `point`. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isFocusPointOfInterestSupported``.
    public func setFocusPointOfInterest(_ point: NormalizedPoint) throws(CaptureError) {
        try requireControl(isFocusPointOfInterestSupported, "a focus point of interest")
    }

    /// Meters exposure at `point`. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isExposurePointOfInterestSupported``.
    public func setExposurePointOfInterest(_ point: NormalizedPoint) throws(CaptureError) {
        try requireControl(isExposurePointOfInterestSupported, "an exposure point of interest")
    }

    /// Zooms to `factor` (1 = no zoom). Requires ``lockForConfiguration()``; `.invalidArgument`
    /// outside 1...``maxAvailableVideoZoomFactor``.
    public func setVideoZoomFactor(_ factor: Double) throws(CaptureError) {
        guard isLockedForConfiguration else {
            throw CaptureError(.deviceNotLockedForConfiguration, "call lockForConfiguration() on \(localizedName) first", deviceID: uniqueID)
        }
        guard factor >= 1, factor <= maxAvailableVideoZoomFactor else {
            throw CaptureError(.invalidArgument, "zoom factor \(factor) is outside 1...\(maxAvailableVideoZoomFactor) for \(localizedName)", deviceID: uniqueID)
        }
        try applyZoomFactor(factor)
    }

    private func requireControl(_ supported: Bool, _ what: String) throws(CaptureError) {
        guard isLockedForConfiguration else {
            throw CaptureError(.deviceNotLockedForConfiguration, "call lockForConfiguration() on \(localizedName) first", deviceID: uniqueID)
        }
        guard supported else {
            throw CaptureError(.notSupported, "\(localizedName) does not support \(what)", deviceID: uniqueID)
        }
    }
}

/// What a backend can control; backends without controls report none (the default).
struct DeviceControls: Sendable {
    var torchModes: Set<CaptureDevice.TorchMode> = []
    var focusModes: Set<CaptureDevice.FocusMode> = []
    var exposureModes: Set<CaptureDevice.ExposureMode> = []
    var focusPointOfInterest = false
    var exposurePointOfInterest = false
    var maxZoomFactor = 1.0
}
