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

    /// Powers (squared magnitudes), turned into decibels when read rather than per buffer on
    /// the device thread.
    private struct Levels {
        var averagePower = 0.0
        var peakPower = 0.0
        var peakTime: MediaTime = .invalid
    }

    private let levels = Mutex(Levels())

    init() {}

    /// The power of the latest buffer: its RMS, in dBFS (+3.01 dB, so a sine reads its peak).
    public var averagePowerLevel: Float { Self.decibels(power: levels.withLock { $0.averagePower }) }

    /// The highest sample magnitude of the last ``peakHoldDuration``, in dBFS: a peak is held
    /// for that long, then replaced by the peak of the newest buffer.
    public var peakHoldLevel: Float { Self.decibels(power: levels.withLock { $0.peakPower }) }

    /// Takes the latest buffer's mean square and peak magnitude (both of samples in −1...1).
    func update(meanSquare: Double, peak: Double, at time: MediaTime) {
        let peakPower = peak * peak
        levels.withLock { levels in
            levels.averagePower = 2 * meanSquare
            let expired = !levels.peakTime.isValid || !(time - levels.peakTime < Self.peakHoldDuration)
            if peakPower >= levels.peakPower || expired {
                levels.peakPower = peakPower
                levels.peakTime = time
            }
        }
    }

    private static func decibels(power: Double) -> Float {
        guard power > 1e-16 else { return minimumLevel }
        return max(minimumLevel, Float(10 * log10(power)))
    }
}
