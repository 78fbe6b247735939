extension CaptureDevice {
    /// A point in the picture: (0, 0) top left, (1, 1) bottom right of the unrotated frame.
    public typealias NormalizedPoint = CapturePoint

    /// Whether focus can be aimed at a point (`isFocusPointOfInterestSupported`). No V4L2
    /// control aims focus, so false on every current device.
    public var isFocusPointOfInterestSupported: Bool { false }

    /// Whether exposure can be metered at a point (`isExposurePointOfInterestSupported`). No
    /// V4L2 control places the metering, so false on every current device.
    public var isExposurePointOfInterestSupported: Bool { false }

    /// Aims focus at `point`. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isFocusPointOfInterestSupported``.
    public func setFocusPointOfInterest(_ point: NormalizedPoint) throws(CaptureError) {
        try requireConfigurationLock()
        guard isFocusPointOfInterestSupported else { throw unsupported("a focus point of interest") }
    }

    /// Meters exposure at `point`. Requires ``lockForConfiguration()``; `.notSupported` unless
    /// ``isExposurePointOfInterestSupported``.
    public func setExposurePointOfInterest(_ point: NormalizedPoint) throws(CaptureError) {
        try requireConfigurationLock()
        guard isExposurePointOfInterestSupported else { throw unsupported("an exposure point of interest") }
    }
}
