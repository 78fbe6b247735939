import CaptureKitCore
package import CFFmpeg

/// Turns decoded audio frames (any sample layout, planar or not, any channel layout) into
/// interleaved buffers of one format with libswresample, from a pool of storage. The
/// resampler is made for the first frame's layout and made again when a frame comes in
/// another (an encoder restarted with other settings). Used by one thread at a time.
package final class DecodedAudioConverter: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg resampler used by one thread at a time.
    package let format: AudioFormat
    private let path: String?
    private var resampler: OpaquePointer?
    private var resamplerInput: (format: Int32, rate: Int32, channels: Int32)?
    private var pool: StoragePool?

    /// A converter to `format`; `path` names the source in errors.
    package init(format: AudioFormat, path: String?) {
        self.format = format
        self.path = path
    }

    deinit { swr_free(&resampler) }

    /// Whether a frame was converted: only then can a flush (``convert(_:)`` with nil) return
    /// anything.
    package var hasStarted: Bool { resampler != nil }

    /// Converts `frame` (nil to flush what the resampler holds back): wraps
    /// `swr_alloc_set_opts2`, `swr_init` and `swr_convert`. Nil when nothing came out.
    package func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws(CaptureError) -> AudioBuffer? {
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
            throw FFmpeg.error(produced, "swr_convert", code: .conversionFailed, path: path)
        }
        guard produced > 0 else { return nil }
        return AudioBuffer(format: format, frameCount: Int(produced), storage: storage)
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
        try FFmpeg.check(swr_alloc_set_opts2(&resampler, &outputLayout, format.sampleFormat.avSampleFormat, Int32(format.sampleRate),
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
