extension CaptureDevice {
    /// The largest zoom factor (`maxAvailableVideoZoomFactor`); 1 for a device without zoom.
    /// The zoom control's range is 1×…this: maximum / minimum when the minimum is positive (UVC
    /// cameras count 100…500 for 1×…5×), else 1× per 100 driver units.
    public var maxAvailableVideoZoomFactor: Double {
        guard let zoom = control(for: .zoom) else { return 1 }
        return Self.maxZoomFactor(of: zoom)
    }

    /// The zoom factor now: 1 for a device without zoom.
    public func videoZoomFactor() throws(CaptureError) -> Double {
        guard let zoom = control(for: .zoom), zoom.maximum > zoom.minimum else { return 1 }
        let fraction = Double(try value(of: zoom) - zoom.minimum) / Double(zoom.maximum - zoom.minimum)
        return 1 + fraction * (Self.maxZoomFactor(of: zoom) - 1)
    }

    /// Zooms to `factor` (1 = no zoom). Requires ``lockForConfiguration()``; `.invalidArgument`
    /// outside 1...``maxAvailableVideoZoomFactor``.
    public func setVideoZoomFactor(_ factor: Double) throws(CaptureError) {
        try requireConfigurationLock()
        let maximum = maxAvailableVideoZoomFactor
        guard factor >= 1, factor <= maximum else {
            throw CaptureError(.invalidArgument, "zoom factor \(factor) is outside 1...\(maximum) for \(localizedName)", deviceID: uniqueID)
        }
        // 1× on a device without zoom is what it already does.
        guard let zoom = control(for: .zoom) else { return }
        let span = maximum - 1
        let fraction = span > 0 ? (factor - 1) / span : 0
        try setValue(zoom.nearestValue(to: zoom.minimum + Int64((Double(zoom.maximum - zoom.minimum) * fraction).rounded())), for: zoom)
    }

    private static func maxZoomFactor(of zoom: Control) -> Double {
        zoom.minimum > 0 ? Double(zoom.maximum) / Double(zoom.minimum) : 1 + Double(zoom.maximum - zoom.minimum) / 100
    }
}
