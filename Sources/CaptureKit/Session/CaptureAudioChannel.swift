import Glibc
import Synchronization

/// The levels of one channel of an audio connection (`AVCaptureAudioChannel`), updated with
/// every buffer that flows through the connection.
///
/// Both levels are in dBFS, referenced to a full-scale sine (AES17): a sine whose peaks reach
/// −6 dBFS reads −6 dB on both meters, a full-scale square wave reads +3 dB average. Silence
/// reads ``minimumLevel``.
///
/// ```swift
/// for channel in connection.audioChannels {
///     print(channel.averagePowerLevel, channel.peakHoldLevel)
/// }
/// ```
public final class CaptureAudioChannel: Sendable {
    /// What silence (and a channel that has not seen a buffer yet) reads: −160 dB.
    public static let minimumLevel: Float = -160
    /// How long ``peakHoldLevel`` holds a peak before it falls to newer ones: one second of
    /// audio (measured on the buffers' timestamps, so it is exact for any buffer size).
    public static let peakHoldDuration = MediaTime(value: 1, timescale: 1)

    private struct Levels {
        var average: Float = CaptureAudioChannel.minimumLevel
        var peak: Float = CaptureAudioChannel.minimumLevel
        var peakTime: MediaTime = .invalid
    }

    private let levels = Mutex(Levels())

    init() {}

    /// The power of the latest buffer: its RMS, in dBFS (+3.01 dB, so a sine reads its peak).
    public var averagePowerLevel: Float { levels.withLock { $0.average } }

    /// The highest sample magnitude of the last ``peakHoldDuration``, in dBFS: a peak is held
    /// for that long, then replaced by the peak of the newest buffer.
    public var peakHoldLevel: Float { levels.withLock { $0.peak } }

    /// Takes the latest buffer's mean square and peak magnitude (both of samples in −1...1).
    func update(meanSquare: Double, peak: Double, at time: MediaTime) {
        let average = Self.decibels(power: 2 * meanSquare)
        let peakLevel = Self.decibels(power: peak * peak)
        levels.withLock { levels in
            levels.average = average
            let expired = !levels.peakTime.isValid || !(time - levels.peakTime < Self.peakHoldDuration)
            if peakLevel >= levels.peak || expired {
                levels.peak = peakLevel
                levels.peakTime = time
            }
        }
    }

    private static func decibels(power: Double) -> Float {
        guard power > 1e-16 else { return minimumLevel }
        return max(minimumLevel, Float(10 * log10(power)))
    }
}
