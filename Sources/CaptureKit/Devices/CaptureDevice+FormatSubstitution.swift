extension CaptureDevice {
    /// What a driver did instead of what was asked: drivers round frame sizes and rates to what
    /// the hardware can do without failing the request. ``CaptureDevice/lastFormatSubstitution``
    /// keeps the latest one.
    public struct FormatSubstitution: Sendable, Hashable, CustomStringConvertible {
        /// The format asked for.
        public let requestedFormat: Format
        /// The frame duration asked for.
        public let requestedFrameDuration: MediaTime
        /// The format the device took.
        public let actualFormat: Format
        /// The frame duration the device took.
        public let actualFrameDuration: MediaTime

        public var description: String {
            "asked for \(requestedFormat.width)x\(requestedFormat.height) \(requestedFormat.fourCC ?? requestedFormat.pixelFormat?.rawValue ?? "?") at \(requestedFrameDuration), "
                + "got \(actualFormat.width)x\(actualFormat.height) \(actualFormat.fourCC ?? actualFormat.pixelFormat?.rawValue ?? "?") at \(actualFrameDuration)"
        }
    }

    /// Applies `configuration` to hardware that takes settings at once (V4L2: VIDIOC_S_FMT and
    /// VIDIOC_S_PARM, read back) while no session streams from it, and records a substitution.
    /// Other devices, and devices in use (their stream applies the settings when it restarts),
    /// take the configuration as it is.
    func applyToHardware(_ configuration: StreamConfiguration) throws(CaptureError) -> (StreamConfiguration, FormatSubstitution?) {
        guard !isInUse, let configurable = backend as? any ConfigurableDeviceBackend else { return (configuration, nil) }
        let actual = try configurable.apply(configuration)
        guard actual != configuration else { return (actual, nil) }
        return (actual, FormatSubstitution(requestedFormat: configuration.format, requestedFrameDuration: configuration.frameDuration,
                                           actualFormat: actual.format, actualFrameDuration: actual.frameDuration))
    }
}
