internal import CFFmpeg
import Foundation

/// One pass through a file's main audio stream: decoded audio as interleaved buffers of the
/// device's format (converted with libswresample), timed in samples. Times count the samples
/// delivered from the first frame's position on, so consecutive buffers join exactly.
final class FileAudioReader: FileSampleReader, @unchecked Sendable {
    // Unchecked Sendable: FFmpeg decoder state confined to the file device's stream thread.
    let timescale: Int32
    private let decoder: FileDecoder
    private let format: AudioFormat
    private let frame: UnsafeMutablePointer<AVFrame>
    /// The file's zero in microseconds, when the container has one.
    private let zeroMicroseconds: Int64?
    private var resampler: OpaquePointer?
    private var resamplerInput: (format: Int32, rate: Int32, channels: Int32)?
    private var pool: StoragePool?
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
        self.format = format
        timescale = Int32(format.sampleRate)
        zeroMicroseconds = input.startTimeMicroseconds
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeing)
        var freeingResampler = resampler
        swr_free(&freeingResampler)
    }

    func next() throws(CaptureError) -> FileSample? {
        while true {
            if try decoder.decode(into: frame) {
                defer { av_frame_unref(frame) }
                if offset == nil { offset = firstSampleOffset() }
                if let sample = try convert(frame) { return sample }
            } else {
                guard !flushed, resampler != nil else { return nil }
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

    /// Converts `frame` (nil to flush) into a buffer of the device's format: wraps
    /// `swr_alloc_set_opts2`, `swr_init` and `swr_convert`. Nil when nothing came out.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws(CaptureError) -> FileSample? {
        if let frame { try configure(for: frame) }
        guard let resampler else { return nil }
        let inputCount = frame.map { $0.pointee.nb_samples } ?? 0
        let capacity = Int(swr_get_out_samples(resampler, inputCount))
        guard capacity > 0 else { return nil }
        let storage = try takeStorage(frames: capacity)
        var output: UnsafeMutablePointer<UInt8>? = storage.bytes.assumingMemoryBound(to: UInt8.self)
        let produced: Int32
        if let frame, let data = frame.pointee.extended_data {
            let input = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            produced = swr_convert(resampler, &output, Int32(capacity), input, inputCount)
        } else {
            produced = swr_convert(resampler, &output, Int32(capacity), nil, 0)
        }
        guard produced >= 0 else {
            throw FFmpeg.error(produced, "swr_convert", code: .conversionFailed, path: decoder.input.path)
        }
        guard produced > 0 else { return nil }
        let buffer = AudioBuffer(format: format, frameCount: Int(produced), storage: storage)
        let time = (offset ?? 0) + delivered
        delivered += Int64(produced)
        return FileSample(media: .audio(buffer), time: time, duration: Int64(produced), length: Int(produced))
    }

    /// (Re)creates the resampler when the decoded layout differs from the one it was made for.
    private func configure(for frame: UnsafeMutablePointer<AVFrame>) throws(CaptureError) {
        let key = (format: frame.pointee.format, rate: frame.pointee.sample_rate, channels: frame.pointee.ch_layout.nb_channels)
        if let current = resamplerInput, current == key, resampler != nil { return }
        swr_free(&resampler)
        var inputLayout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, key.channels)
        } else {
            _ = av_channel_layout_copy(&inputLayout, &frame.pointee.ch_layout)
        }
        defer { av_channel_layout_uninit(&inputLayout) }
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(format.channelCount))
        defer { av_channel_layout_uninit(&outputLayout) }
        let outputFormat = format.sampleFormat == .s16 ? AV_SAMPLE_FMT_S16 : format.sampleFormat == .s32 ? AV_SAMPLE_FMT_S32 : AV_SAMPLE_FMT_FLT
        let path = decoder.input.path
        try FFmpeg.check(swr_alloc_set_opts2(&resampler, &outputLayout, outputFormat, Int32(format.sampleRate),
                                             &inputLayout, AVSampleFormat(rawValue: key.format), key.rate, 0, nil),
                         "swr_alloc_set_opts2", code: .conversionFailed, path: path)
        try FFmpeg.check(swr_init(resampler), "swr_init", code: .conversionFailed, path: path)
        resamplerInput = key
    }

    /// Storage for `frames` audio frames, from a pool that grows when a frame is larger than any before.
    private func takeStorage(frames: Int) throws(CaptureError) -> MediaStorage {
        let bytes = frames * format.bytesPerFrame
        if let pool, pool.blockSize >= bytes { return try pool.take() }
        let grown = StoragePool(blockSize: max(bytes, (pool?.blockSize ?? 0) * 2), maximumIdle: 32)
        pool = grown
        return try grown.take()
    }
}
