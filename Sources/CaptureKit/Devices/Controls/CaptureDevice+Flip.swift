extension CaptureDevice {
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
}
