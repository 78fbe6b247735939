import CaptureKitCore
package import CFFmpeg

/// One audio encoder (AAC, PCM or Opus) fed with interleaved samples in any ``AudioFormat``:
/// libswresample converts to the encoder's sample format, layout and rate, and an audio FIFO
/// cuts the stream into the encoder's frame size. Timestamps are sample counts, so the
/// encoded track is exactly as long as what went in.
package final class AudioEncoder {
    package let context: UnsafeMutablePointer<AVCodecContext>
    private let resampler: OpaquePointer
    private let fifo: OpaquePointer
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let input: AudioFormat
    private let frameSize: Int32
    /// Samples handed to the encoder so far: the next frame's pts.
    private var encodedSamples: Int64 = 0
    private var scratch: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
    private var scratchCapacity: Int32 = 0
    /// Zeroed input frames for gaps, allocated on first use.
    private var silence: UnsafeMutableRawBufferPointer?
    private static let silenceChunk = 4096

    /// Opens the encoder. Wraps `avcodec_open2` and `swr_init`.
    /// The rate the encoder takes samples at.
    package var sampleRate: Int32 { context.pointee.sample_rate }

    package init(codec: MovieOutputSettings.AudioCodec, input: AudioFormat, bitRate: Int, globalHeader: Bool) throws(CaptureError) {
        let name: String
        switch codec {
        case .aac: name = "aac"
        case .pcm: name = "pcm_s16le"
        case .opus: name = "libopus"
        }
        let (encoder, context, frame, packet) = try FFmpeg.allocateEncoder(named: name)
        self.context = context
        self.frame = frame
        self.packet = packet
        self.input = input
        // Opus only runs at 48 kHz (and a few lower rates); everything else keeps the input rate.
        let rate = codec == .opus ? 48_000 : input.sampleRate
        context.pointee.sample_rate = Int32(rate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        context.pointee.sample_fmt = encoder.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_S16
        av_channel_layout_default(&context.pointee.ch_layout, Int32(input.channelCount))
        if codec != .pcm { context.pointee.bit_rate = Int64(bitRate) }
        if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }

        var resampler: OpaquePointer?
        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(input.channelCount))
        let opened = avcodec_open2(context, encoder, nil)
        let configured = opened < 0 ? opened : swr_alloc_set_opts2(
            &resampler, &context.pointee.ch_layout, context.pointee.sample_fmt, context.pointee.sample_rate,
            &inputLayout, input.sampleFormat.avSampleFormat, Int32(input.sampleRate), 0, nil)
        let initialized = configured < 0 || resampler == nil ? configured : swr_init(resampler)
        guard opened >= 0, configured >= 0, initialized >= 0, let resampler,
              let fifo = av_audio_fifo_alloc(context.pointee.sample_fmt, Int32(input.channelCount), 4096) else {
            var contextToFree: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&contextToFree)
            var frameToFree: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&frameToFree)
            var packetToFree: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&packetToFree)
            swr_free(&resampler)
            let code = [opened, configured, initialized].first { $0 < 0 } ?? ck_averror(ENOMEM)
            throw FFmpeg.error(code, "opening the \(name) encoder for \(input)", code: .unsupportedFormat)
        }
        self.resampler = resampler
        self.fifo = fifo
        frameSize = context.pointee.frame_size > 0 ? context.pointee.frame_size : 1024
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
        var resampler: OpaquePointer? = self.resampler
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
        freeScratch()
        silence?.deallocate()
    }

    private func freeScratch() {
        if let scratch {
            av_freep(scratch)
            scratch.deallocate()
        }
        scratch = nil
        scratchCapacity = 0
    }

    /// Converts and encodes `frames` interleaved input frames starting at `bytes`.
    package func append(_ bytes: UnsafeRawPointer, frames: Int,
                write: PacketSink) throws(CaptureError) {
        guard frames > 0 else { return }
        try convert(bytes, frames: Int32(frames))
        try encodeFullFrames(write: write)
    }

    /// Encodes `frames` frames of silence (to fill a gap so audio stays aligned with video).
    package func appendSilence(frames: Int, write: PacketSink) throws(CaptureError) {
        let zeros: UnsafeMutableRawBufferPointer
        if let silence {
            zeros = silence
        } else {
            zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.silenceChunk * input.bytesPerFrame, alignment: 16)
            zeros.initializeMemory(as: UInt8.self, repeating: 0)
            silence = zeros
        }
        var remaining = frames
        while remaining > 0, let base = zeros.baseAddress {
            let count = min(Self.silenceChunk, remaining)
            try append(base, frames: count, write: write)
            remaining -= count
        }
    }

    /// Encodes what is left (a short last frame) and flushes the encoder.
    package func finish(write: PacketSink) throws(CaptureError) {
        try convert(nil, frames: 0)
        try encodeFullFrames(write: write)
        let left = av_audio_fifo_size(fifo)
        if left > 0 { try encodeFrame(samples: left, write: write) }
        try FFmpeg.flushEncoder(context, "audio")
        try drain(write: write)
    }

    /// Resamples into the FIFO; nil input drains the resampler's delay.
    private func convert(_ bytes: UnsafeRawPointer?, frames: Int32) throws(CaptureError) {
        let capacity = swr_get_out_samples(resampler, frames) + 32
        if capacity > scratchCapacity {
            freeScratch()
            let planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 8)
            planes.initialize(repeating: nil, count: 8)
            try FFmpeg.check(av_samples_alloc(planes, nil, Int32(input.channelCount), capacity, context.pointee.sample_fmt, 0),
                             "av_samples_alloc", code: .outOfMemory)
            scratch = planes
            scratchCapacity = capacity
        }
        guard let scratch else { return }
        var source = bytes?.assumingMemoryBound(to: UInt8.self)
        let converted = try withUnsafeMutablePointer(to: &source) { (pointer) throws(CaptureError) -> Int32 in
            try FFmpeg.check(pointer.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) { input in
                swr_convert(resampler, scratch, scratchCapacity, bytes == nil ? nil : input, frames)
            }, "swr_convert", code: .conversionFailed)
        }
        guard converted > 0 else { return }
        let written = scratch.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) {
            av_audio_fifo_write(fifo, $0, converted)
        }
        try FFmpeg.check(written, "av_audio_fifo_write", code: .outOfMemory)
    }

    private func encodeFullFrames(write: PacketSink) throws(CaptureError) {
        while av_audio_fifo_size(fifo) >= frameSize {
            try encodeFrame(samples: frameSize, write: write)
        }
    }

    private func encodeFrame(samples: Int32, write: PacketSink) throws(CaptureError) {
        av_frame_unref(frame)
        frame.pointee.nb_samples = samples
        frame.pointee.format = context.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = context.pointee.sample_rate
        try FFmpeg.check(av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout), "av_channel_layout_copy")
        try FFmpeg.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer", code: .outOfMemory)
        let read = withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { av_audio_fifo_read(fifo, $0, samples) }
        }
        try FFmpeg.check(read, "av_audio_fifo_read")
        frame.pointee.pts = encodedSamples
        encodedSamples += Int64(samples)
        try FFmpeg.check(avcodec_send_frame(context, frame), "avcodec_send_frame(audio)")
        try drain(write: write)
    }

    private func drain(write: PacketSink) throws(CaptureError) {
        let timeBase = context.pointee.time_base
        try FFmpeg.drainEncoder(context, into: packet, "audio", write: { (packet) throws(CaptureError) in
            try write(EncodedPacket(track: .audio, packet: packet, timeBase: timeBase))
        })
    }
}

extension AudioFormat.SampleFormat {
    /// FFmpeg's name for the (interleaved) sample format.
    package var avSampleFormat: AVSampleFormat {
        switch self {
        case .s16: return AV_SAMPLE_FMT_S16
        case .s32: return AV_SAMPLE_FMT_S32
        case .f32: return AV_SAMPLE_FMT_FLT
        }
    }
}
