/// A run of interleaved audio frames in one ``AudioFormat``.
///
/// ```swift
/// let buffer = sampleBuffer.audioBuffer!
/// let levels = buffer.floatSamples()   // any sample format, as Float in −1...1
/// ```
public final class AudioBuffer: Sendable {
    /// The sample layout.
    public let format: AudioFormat
    /// Frames in the buffer (a frame is one sample of every channel).
    public let frameCount: Int
    package let storage: MediaStorage

    /// Allocates a zeroed (silent) buffer.
    public convenience init(format: AudioFormat, frameCount: Int) throws(CaptureError) {
        guard format.isValid, frameCount >= 0 else {
            throw .invalidArgument("audio buffer of \(frameCount) frames in \(format) is not valid")
        }
        let storage = try MediaStorage.allocate(byteCount: frameCount * format.bytesPerFrame)
        storage.bytes.initializeMemory(as: UInt8.self, repeating: 0, count: storage.byteCount)
        self.init(format: format, frameCount: frameCount, storage: storage)
    }

    package init(format: AudioFormat, frameCount: Int, storage: MediaStorage) {
        self.format = format
        self.frameCount = frameCount
        self.storage = storage
    }

    /// The duration of the buffer at its sample rate.
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(format.sampleRate)) }

    /// A copy without the first `count` frames (a stretch of sound cut where it would lie over
    /// sound already delivered).
    package func dropping(first count: Int) throws(CaptureError) -> AudioBuffer {
        let kept = max(0, frameCount - max(0, count))
        let copy = try AudioBuffer(format: format, frameCount: kept)
        copy.storage.bytes.copyMemory(from: storage.bytes + (frameCount - kept) * format.bytesPerFrame, byteCount: kept * format.bytesPerFrame)
        return copy
    }

    /// Bytes of sample data.
    public var byteCount: Int { frameCount * format.bytesPerFrame }

    /// Reads the interleaved samples.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.bytes, count: byteCount))
    }

    /// Writes the interleaved samples. Only for buffers not yet shared with anyone else.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: storage.bytes, count: byteCount))
    }

    /// Every sample (interleaved) as a Float in −1...1, whatever the sample format.
    public func floatSamples() -> [Float] {
        let count = frameCount * format.channelCount
        return withUnsafeBytes { raw in
            switch format.sampleFormat {
            case .s16: return raw.bindMemory(to: Int16.self).prefix(count).map { Float($0) / 32768 }
            case .s32: return raw.bindMemory(to: Int32.self).prefix(count).map { Float(Double($0) / 2_147_483_648) }
            case .f32: return Array(raw.bindMemory(to: Float.self).prefix(count))
            }
        }
    }
}
