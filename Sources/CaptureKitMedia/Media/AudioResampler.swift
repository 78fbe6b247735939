import CaptureKitCore
internal import CFFmpeg

/// Converts a continuous stream of interleaved audio buffers to another sample format, rate and
/// channel count with libswresample. Stateful: the resampling filter runs across buffer
/// boundaries, so a tone stays clean. Output timestamps count output frames from the first
/// input buffer's time; a jump in the input's timestamps (a device gap, a dropped buffer)
/// restarts the filter at the new time.
package final class AudioResampler {
    package let input: AudioFormat
    package let output: AudioFormat
    private var context: OpaquePointer?
    /// The first output frame's time, in output frames; nil before the first buffer.
    private var anchor: Int64?
    private var producedFrames: Int64 = 0
    /// The very first anchor: sequence numbers count output frames from it, so they jump where
    /// the timestamps do.
    private var firstAnchor: Int64?
    /// Where the next input buffer should start, in input frames.
    private var expectedInput: Int64?
    private var pool: StoragePool?

    /// Wraps `swr_alloc_set_opts2`, `swr_set_matrix` and `swr_init`. Mono to many channels copies
    /// the channel to each at full level, many to mono averages them (libswresample's own
    /// mixing would lower or raise the level by 3 dB); other layouts use its default matrix.
    package init(from input: AudioFormat, to output: AudioFormat) throws(CaptureError) {
        guard input.isValid, output.isValid else {
            throw .invalidArgument("cannot convert audio from \(input) to \(output): rates must be 1...768000 Hz and channels 1...32")
        }
        self.input = input
        self.output = output
        context = try Self.makeContext(from: input, to: output)
    }

    deinit { swr_free(&context) }

    private static func makeContext(from input: AudioFormat, to output: AudioFormat) throws(CaptureError) -> OpaquePointer {
        try FFmpeg.prepare()
        var context: OpaquePointer?
        var inputLayout = AVChannelLayout()
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(input.channelCount))
        av_channel_layout_default(&outputLayout, Int32(output.channelCount))
        defer {
            av_channel_layout_uninit(&inputLayout)
            av_channel_layout_uninit(&outputLayout)
        }
        let configured = swr_alloc_set_opts2(&context, &outputLayout, output.sampleFormat.avSampleFormat, Int32(output.sampleRate),
                                             &inputLayout, input.sampleFormat.avSampleFormat, Int32(input.sampleRate), 0, nil)
        guard configured >= 0, let context else {
            throw FFmpeg.error(configured < 0 ? configured : ck_averror(ENOMEM), "swr_alloc_set_opts2", code: .conversionFailed)
        }
        var freeing: OpaquePointer? = context
        if input.channelCount != output.channelCount, input.channelCount == 1 || output.channelCount == 1 {
            // matrix[out * stride + in]
            let gain = input.channelCount == 1 ? 1.0 : 1.0 / Double(input.channelCount)
            let matrix = [Double](repeating: gain, count: input.channelCount * output.channelCount)
            let set = swr_set_matrix(context, matrix, Int32(input.channelCount))
            if set < 0 {
                swr_free(&freeing)
                throw FFmpeg.error(set, "swr_set_matrix", code: .conversionFailed)
            }
        }
        let initialized = swr_init(context)
        if initialized < 0 {
            swr_free(&freeing)
            throw FFmpeg.error(initialized, "swr_init", code: .conversionFailed)
        }
        return context
    }

    /// Converts `sample` (audio in ``input``): the converted frames, timed on the output rate,
    /// or nil when the filter kept everything (it holds back a few frames of lookahead).
    package func convert(_ sample: SampleBuffer) throws(CaptureError) -> SampleBuffer? {
        guard let buffer = sample.audioBuffer, buffer.format == input else {
            throw .invalidArgument("the resampler converts \(input), not \(sample.formatDescription)")
        }
        let start = sample.presentationTimeStamp.convertScale(Int32(input.sampleRate), method: .roundHalfAwayFromZero).value
        if let expected = expectedInput, abs(start - expected) > 1 {
            // A gap or overlap in the input: start over at its new time.
            swr_free(&context)
            context = try Self.makeContext(from: input, to: output)
            anchor = nil
        }
        if anchor == nil {
            anchor = sample.presentationTimeStamp.convertScale(Int32(output.sampleRate), method: .roundHalfAwayFromZero).value
            producedFrames = 0
            if firstAnchor == nil { firstAnchor = anchor }
        }
        expectedInput = start + Int64(buffer.frameCount)
        guard let context else { throw .internalError("resampler without a context") }

        let capacity = Int(swr_get_out_samples(context, Int32(buffer.frameCount)))
        guard capacity > 0 else { return nil }
        if pool == nil || pool!.blockSize < capacity * output.bytesPerFrame {
            pool = StoragePool(blockSize: capacity * output.bytesPerFrame, maximumIdle: 8)
        }
        guard let pool else { return nil }
        let storage = try pool.take()
        let produced = buffer.withUnsafeBytes { raw -> Int32 in
            var source: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var destination: UnsafeMutablePointer<UInt8>? = storage.bytes.assumingMemoryBound(to: UInt8.self)
            return swr_convert(context, &destination, Int32(pool.blockSize / output.bytesPerFrame), &source, Int32(buffer.frameCount))
        }
        try FFmpeg.check(produced, "swr_convert", code: .conversionFailed)
        guard produced > 0, let anchor else { return nil }
        let converted = AudioBuffer(format: output, frameCount: Int(produced), storage: storage)
        let pts = MediaTime(value: anchor + producedFrames, timescale: Int32(output.sampleRate))
        producedFrames += Int64(produced)
        return SampleBuffer(media: .audio(converted), presentationTimeStamp: pts, duration: converted.duration,
                            sequenceNumber: UInt64(max(0, pts.value - (firstAnchor ?? pts.value))))
    }
}
