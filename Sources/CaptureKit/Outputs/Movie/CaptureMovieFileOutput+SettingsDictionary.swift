extension CaptureMovieFileOutput {
    /// Sets the encoding of `connection` from AVFoundation's dictionary
    /// (`setOutputSettings(_:for:)` with `[AVVideoCodecKey: …]`): ``VideoCodecKey`` picks the
    /// video codec, other keys are ignored, and the rest of the connection's settings stay.
    public func setOutputSettings(_ dictionary: [String: any Sendable], for connection: CaptureConnection) {
        var settings = outputSettings(for: connection)
        if let codec = dictionary[VideoCodecKey] as? VideoCodecType { settings.videoCodec = codec }
        setOutputSettings(settings, for: connection)
    }
}
