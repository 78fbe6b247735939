internal import CFFmpeg
import Foundation

/// One pass through a file's main audio stream: decoded audio as interleaved buffers of the
/// device's format (converted by ``DecodedAudioConverter``), timed in samples. Times count the samples
/// delivered from the first frame's position on, so consecutive buffers join exactly.
final class FileAudioReader: FileSampleReader, @unchecked Sendable {
    // Unchecked Sendable: FFmpeg decoder state confined to the file device's stream thread.
    let timescale: Int32
    private let decoder: FileDecoder
    private let frame: UnsafeMutablePointer<AVFrame>
    /// The file's zero in microseconds, when the container has one.
    private let zeroMicroseconds: Int64?
    private let converter: DecodedAudioConverter
    /// Where the first decoded sample lies on the file's timeline, in samples.
    private var offset: Int64?
    private var delivered: Int64 = 0
    private var flushed = false

    /// Opens the file for `format` (one of the device's formats).
    init(url: URL, format: AudioFormat) throws(CaptureError) {
        let input = try MediaInput(url: url)
        decoder = try FileDecoder(input: input, type: AVMEDIA_TYPE_AUDIO)
        guard let frame = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: input.path)
        }
        self.frame = frame
        converter = DecodedAudioConverter(format: format, path: input.path)
        timescale = Int32(format.sampleRate)
        zeroMicroseconds = input.startTimeMicroseconds
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeing)
    }

    func next() throws(CaptureError) -> FileSample? {
        while true {
            if try decoder.decode(into: frame) {
                defer { av_frame_unref(frame) }
                if offset == nil { offset = firstSampleOffset() }
                if let sample = try convert(frame) { return sample }
            } else {
                guard !flushed, converter.hasStarted else { return nil }
                // Whatever libswresample still holds (nothing unless it had to resample).
                flushed = true
                if let sample = try convert(nil) { return sample }
                return nil
            }
        }
    }

    /// The first frame's position from the file's zero, in samples (never negative: encoder
    /// priming before the zero is not delayed into the timeline).
    private func firstSampleOffset() -> Int64 {
        let timeBase = decoder.timeBase
        guard timeBase.isPositive, let zeroMicroseconds, let ticks = FileDecoder.timestamp(of: frame) else { return 0 }
        let samples = AVRational(num: 1, den: timescale)
        let start = av_rescale_q(ticks, timeBase, samples)
        let zero = av_rescale_q(zeroMicroseconds, AVRational(num: 1, den: 1_000_000), samples)
        return max(0, start - zero)
    }

    /// Converts `frame` (nil to flush) into a buffer of the device's format, timed by the
    /// samples delivered. Nil when nothing came out.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws(CaptureError) -> FileSample? {
        guard let buffer = try converter.convert(frame) else { return nil }
        let time = (offset ?? 0) + delivered
        delivered += Int64(buffer.frameCount)
        return FileSample(media: .audio(buffer), time: time, duration: Int64(buffer.frameCount), length: buffer.frameCount)
    }
}
