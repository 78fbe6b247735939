import Glibc
import Synchronization

/// Measures every buffer of an audio connection into its ``CaptureAudioChannel``s. Runs on the
/// device's thread: one pass over the samples per buffer, whatever the number of connections
/// fed from it, and no allocation unless the channel count changes.
final class AudioLevelMeter: Sendable {
    private let channels = Mutex<[CaptureAudioChannel]>([])

    /// The channels measured so far (empty until the first buffer).
    var audioChannels: [CaptureAudioChannel] { channels.withLock { $0 } }

    /// Measures `buffer` once and updates every one of `meters` with it.
    static func measure<Meters: Sequence>(_ buffer: AudioBuffer, at time: MediaTime, into meters: Meters)
    where Meters.Element == AudioLevelMeter {
        let count = buffer.format.channelCount
        let frames = buffer.frameCount
        guard frames > 0 else { return }
        for channel in 0..<count {
            let (sumOfSquares, peak) = sums(buffer, channel: channel)
            for meter in meters {
                meter.channel(channel, of: count).update(meanSquare: sumOfSquares / Double(frames), peak: peak, at: time)
            }
        }
    }

    /// The level of `buffer`'s loudest channel: its RMS in dB below full scale (−160 for
    /// silence), as ``CaptureAudioChannel/averagePowerLevel`` measures one buffer.
    static func loudestLevel(of buffer: AudioBuffer) -> Float {
        let count = buffer.format.channelCount, frames = buffer.frameCount
        guard frames > 0 else { return -160 }
        var loudest = 0.0
        for channel in 0..<count {
            loudest = max(loudest, sums(buffer, channel: channel).sumOfSquares / Double(frames))
        }
        return loudest > 0 ? max(-160, Float(10 * log10(loudest))) : -160
    }

    /// Channel `index` of `count`; a new set of channels when the count changed.
    private func channel(_ index: Int, of count: Int) -> CaptureAudioChannel {
        channels.withLock { channels in
            if channels.count != count { channels = (0..<count).map { _ in CaptureAudioChannel() } }
            return channels[index]
        }
    }

    /// The sum of squares and the largest magnitude of channel `channel` of `buffer` (in −1...1).
    private static func sums(_ buffer: AudioBuffer, channel: Int) -> (sumOfSquares: Double, peak: Double) {
        let count = buffer.format.channelCount, frames = buffer.frameCount
        return buffer.withUnsafeBytes { raw in
            switch buffer.format.sampleFormat {
            case .s16: return sums(raw.bindMemory(to: Int16.self), channel: channel, stride: count, frames: frames) { Double($0) / 32768 }
            case .s32: return sums(raw.bindMemory(to: Int32.self), channel: channel, stride: count, frames: frames) { Double($0) / 2_147_483_648 }
            case .f32: return sums(raw.bindMemory(to: Float.self), channel: channel, stride: count, frames: frames) { Double($0) }
            }
        }
    }

    /// The sum of squares and the largest magnitude of one channel's samples (in −1...1).
    @inline(__always)
    private static func sums<Sample>(_ samples: UnsafeBufferPointer<Sample>, channel: Int, stride: Int, frames: Int,
                                     normalized: (Sample) -> Double) -> (Double, Double) {
        var sumOfSquares = 0.0
        var peak = 0.0
        for frame in 0..<frames {
            let value = normalized(samples[frame * stride + channel])
            sumOfSquares += value * value
            peak = max(peak, abs(value))
        }
        return (sumOfSquares, peak)
    }
}
