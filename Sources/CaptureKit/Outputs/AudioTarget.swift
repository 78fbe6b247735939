/// The sample format, rate and channel count an audio data output delivers; nil members keep
/// the device's (the typed form of `AVCaptureAudioDataOutput.audioSettings`).
///
/// ```swift
/// let output = CaptureAudioDataOutput()
/// output.audioSettings = AudioTarget(sampleFormat: .f32, sampleRate: 16_000, channelCount: 1)
/// ```
public struct AudioTarget: Sendable, Hashable {
    /// The wanted sample type, or nil for the device's.
    public var sampleFormat: AudioFormat.SampleFormat?
    /// The wanted rate in hertz (1...768 000), or nil for the device's.
    public var sampleRate: Int?
    /// The wanted channel count (1...32), or nil for the device's.
    public var channelCount: Int?

    /// A target; leave a member nil to keep the device's value.
    public init(sampleFormat: AudioFormat.SampleFormat? = nil, sampleRate: Int? = nil, channelCount: Int? = nil) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// The format buffers of `source` are delivered in.
    public func resolved(for source: AudioFormat) -> AudioFormat {
        AudioFormat(sampleRate: sampleRate ?? source.sampleRate, channelCount: channelCount ?? source.channelCount,
                    sampleFormat: sampleFormat ?? source.sampleFormat)
    }
}
