/// The layout of uncompressed audio: interleaved samples of one type.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// The type of one sample.
    public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
        /// Signed 16-bit integers.
        case s16
        /// Signed 32-bit integers.
        case s32
        /// 32-bit floats in −1...1.
        case f32

        /// Bytes per sample of one channel.
        public var bytesPerSample: Int { self == .s16 ? 2 : 4 }
    }

    /// Frames per second (48 000 for the virtual microphone).
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int
    /// The type of each sample.
    public var sampleFormat: SampleFormat

    /// A format; see ``isValid`` for the accepted ranges.
    public init(sampleRate: Int, channelCount: Int, sampleFormat: SampleFormat) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleFormat = sampleFormat
    }

    /// Bytes per frame (one sample of every channel).
    public var bytesPerFrame: Int { channelCount * sampleFormat.bytesPerSample }

    /// Whether the rate (1 Hz...768 kHz) and channel count (1...32) are usable.
    public var isValid: Bool { (1...768_000).contains(sampleRate) && (1...32).contains(channelCount) }

    public var description: String { "\(sampleRate) Hz \(channelCount) ch \(sampleFormat.rawValue)" }
}
