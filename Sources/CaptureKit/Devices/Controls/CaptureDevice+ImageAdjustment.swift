extension CaptureDevice {
    /// A picture setting with a numeric range (V4L2's user controls).
    public enum ImageAdjustment: String, Sendable, Hashable, CaseIterable {
        /// Black level (`V4L2_CID_BRIGHTNESS`).
        case brightness
        /// Picture contrast (`V4L2_CID_CONTRAST`).
        case contrast
        /// Colour saturation (`V4L2_CID_SATURATION`).
        case saturation
        /// Hue (`V4L2_CID_HUE`).
        case hue
        /// Sensor gain (`V4L2_CID_GAIN`).
        case gain
        /// Sharpness (`V4L2_CID_SHARPNESS`).
        case sharpness
        /// Gamma adjustment (`V4L2_CID_GAMMA`).
        case gamma
    }

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
}
