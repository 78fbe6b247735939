import CaptureKitCore
package import CFFmpeg

/// One video encoder (libx264, libx265 or FFmpeg's MJPEG) fed with `PixelBuffer`s in the
/// encoder's own pixel format; packets come out in the 1/90000 time base.
package final class VideoEncoder {
    /// The time base of every video timestamp CaptureKit writes: 90 kHz divides the common
    /// frame durations (1/15, 1/24, 1/25, 1/30, 1/60, 1001/30000) exactly.
    package static let timeBase = AVRational(num: 1, den: 90_000)

    package let context: UnsafeMutablePointer<AVCodecContext>
    package let pixelFormat: PixelFormat
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// The duration of the last frame sent: packets that leave the encoder only when it is
    /// flushed carry no duration of their own.
    private var lastDuration: Int64 = 0
    /// Whether the next frame must be a keyframe (a new bit rate starts with one).
    private var forcesKeyframe = false

    /// How much faster than its settings say the encoder runs: `.configured`, or a faster x264 /
    /// x265 preset that a live recording falls back to while the encoder cannot keep up.
    package let speed: Speed

    /// A preset, whether x264 is told to keep the configured preset's stream headers (so one
    /// track can hold frames of both), and whether it works for a live recording.
    package struct Speed: Hashable, Sendable {
        package var preset: MovieOutputSettings.EncoderPreset
        /// x264's fast presets turn off CABAC, 8x8 transforms, weighted prediction and
        /// B-frames, which changes the SPS/PPS; this keeps them on (the default presets' values),
        /// which costs the fastest preset a little of its speed.
        package var keepsHeaders = false
        /// Less delay between a frame and its packet, so a killed recording loses less: no
        /// sync lookahead, and a rate-control lookahead of at most 0.2 s of frames (x264's
        /// `veryfast` holds 16 frames, 0.53 s at 30 fps; this leaves 8). Costs a little
        /// compression; changes no header.
        package var lowLatency = false
        /// No frame held back at all: x264's and x265's `zerolatency` tune (no B-frames, no
        /// lookahead, slice threads), so each frame's packet leaves the call that takes it. For
        /// a time-lapse, whose frames come seconds or minutes apart: a frame waiting inside the
        /// encoder for the next ones would be lost with a crash for all that time.
        package var zeroLatency = false

        /// The settings' own preset; `live` for a recording from a live device.
        package static func configured(_ settings: MovieOutputSettings, live: Bool = false) -> Speed {
            Speed(preset: settings.encoderPreset, lowLatency: live)
        }

        /// The speeds a live recording falls back to, fastest last: every faster preset.
        package static func fallbacks(for settings: MovieOutputSettings) -> [Speed] {
            guard settings.videoCodec != .mjpeg, let index = MovieOutputSettings.EncoderPreset.allCases.firstIndex(of: settings.encoderPreset) else { return [] }
            return MovieOutputSettings.EncoderPreset.allCases[..<index].reversed().map {
                Speed(preset: $0, keepsHeaders: settings.videoCodec == .h264, lowLatency: true)
            }
        }

        /// The x264 options that go with the speed (`x264-params`) at `framesPerSecond`.
        package func x264Parameters(framesPerSecond: Double) -> String? {
            var options: [String] = []
            if keepsHeaders { options.append("cabac=1:8x8dct=1:weightp=1:weightb=1:bframes=3:b-pyramid=2") }
            // Zero latency has no lookahead at all (x264's tune): one here would hold that many
            // frames back again (200 ms at 30 fps, found by capture-bench's glass-to-glass row).
            if lowLatency, !zeroLatency {
                let defaultLookahead = [MovieOutputSettings.EncoderPreset.ultrafast: 0, .superfast: 0, .veryfast: 10, .faster: 20, .fast: 30][preset] ?? 40
                options.append("sync-lookahead=0:rc-lookahead=\(min(defaultLookahead, max(3, Int((framesPerSecond * 0.2).rounded()))))")
            }
            return options.isEmpty ? nil : options.joined(separator: ":")
        }
    }

    /// Opens the encoder. Wraps `avcodec_open2`.
    package init(codec: MovieOutputSettings.VideoCodec, width: Int, height: Int, sourceFormat: PixelFormat,
         frameDuration: MediaTime, settings: MovieOutputSettings, keyframeInterval: MediaTime,
         globalHeader: Bool, speed: Speed) throws(CaptureError) {
        self.speed = speed
        let name = codec.encoderName
        let (encoder, context, frame, packet) = try FFmpeg.allocateEncoder(named: name)
        self.context = context
        self.frame = frame
        self.packet = packet
        // MJPEG keeps 4:2:2 sources at 4:2:2 (what webcams send); the others use 4:2:0, which
        // every player decodes.
        let sourceIs422 = [.yuyv422, .uyvy422, .yuv422p].contains(sourceFormat)
        pixelFormat = codec == .mjpeg && sourceIs422 ? .yuv422p : .yuv420p

        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = pixelFormat.avPixelFormat
        context.pointee.time_base = Self.timeBase
        let rate = frameDuration.isNumeric && frameDuration.value > 0 ? frameDuration : MediaTime(value: 1, timescale: 30)
        context.pointee.framerate = AVRational(num: rate.timescale, den: Int32(clamping: rate.value))
        context.pointee.gop_size = Int32(max(1, (keyframeInterval.seconds / rate.seconds).rounded()))
        context.pointee.color_range = AVCOL_RANGE_MPEG
        context.pointee.thread_count = 0
        if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }

        let priv = context.pointee.priv_data
        switch codec {
        case .h264, .hevc:
            av_opt_set(priv, "preset", speed.preset.rawValue, 0)
            if speed.zeroLatency { av_opt_set(priv, "tune", "zerolatency", 0) }
            if codec == .h264, let parameters = speed.x264Parameters(framesPerSecond: 1 / rate.seconds) { av_opt_set(priv, "x264-params", parameters, 0) }
            if codec == .hevc { av_opt_set(priv, "x265-params", "log-level=error", 0) }
            switch settings.videoQuality ?? .constantQuality(23) {
            case .constantQuality(let crf): av_opt_set(priv, "crf", String(min(51, max(0, crf))), 0)
            case .bitRate(let bits):
                context.pointee.bit_rate = Int64(bits)
                // Live: a constant rate a link can carry, the buffer one second of it.
                if speed.zeroLatency { Self.constrain(context, to: bits) }
            }
        case .mjpeg:
            // FFmpeg's MJPEG encoder takes limited-range 4:2:x only as "unofficial".
            context.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
            switch settings.videoQuality ?? .constantQuality(3) {
            case .constantQuality(let q):
                context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
                context.pointee.global_quality = Int32(FF_QP2LAMBDA) * Int32(min(31, max(2, q)))
            case .bitRate(let bits): context.pointee.bit_rate = Int64(bits)
            }
        }
        // Every stored property is set, so a throw here runs deinit, which frees.
        try FFmpeg.check(avcodec_open2(context, encoder, nil), "avcodec_open2(\(name))", code: .unsupportedFormat)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    /// Makes the next frame a keyframe (an IDR picture: nothing after it refers to anything
    /// before), where a file is to be cut.
    package func requestKeyframe() { forcesKeyframe = true }

    /// Changes the target bit rate (and its one-second buffer) while encoding, from the next
    /// frame, which is made a keyframe: the new rate starts a group of its own. libx264 applies
    /// it without a new stream header (`x264_encoder_reconfig`).
    package func setBitRate(_ bits: Int) {
        Self.constrain(context, to: bits)
        context.pointee.bit_rate = Int64(bits)
        forcesKeyframe = true
    }

    private static func constrain(_ context: UnsafeMutablePointer<AVCodecContext>, to bits: Int) {
        context.pointee.rc_max_rate = Int64(bits)
        context.pointee.rc_buffer_size = Int32(clamping: bits)
    }

    /// Encodes `buffer` (in ``pixelFormat``, the encoder's size) at `pts` (90 kHz) lasting
    /// `duration`, or flushes the encoder when `buffer` is nil (pts and duration unused); hands
    /// every finished packet to `write`. Wraps `avcodec_send_frame` / `avcodec_receive_packet`.
    package func encode(_ buffer: PixelBuffer?, pts: Int64, duration: Int64,
                write: PacketSink) throws(CaptureError) {
        if let buffer {
            lastDuration = duration
            // The frame is handed over by reference: libavcodec copies every plane of a frame
            // without `buf` into a new buffer on each send (a 3 MB copy plus fresh pages per
            // 1080p frame, which ffmpeg's refcounted frames never pay). The reference keeps the
            // storage alive until libavcodec lets go of the frame; ours is dropped after sending.
            let storage = Unmanaged.passRetained(buffer.storage)
            guard let reference = av_buffer_create(buffer.storage.bytes.assumingMemoryBound(to: UInt8.self), buffer.storage.byteCount,
                                                   { opaque, _ in opaque.map { Unmanaged<MediaStorage>.fromOpaque($0).release() } },
                                                   storage.toOpaque(), 0) else {
                storage.release()
                throw CaptureError(.outOfMemory, "cannot reference a frame for the encoder", operation: "av_buffer_create")
            }
            defer { av_frame_unref(frame) }
            frame.pointee.buf.0 = reference
            frame.pointee.format = pixelFormat.avPixelFormat.rawValue
            frame.pointee.width = Int32(buffer.width)
            frame.pointee.height = Int32(buffer.height)
            frame.pointee.pts = pts
            frame.pointee.pkt_duration = duration
            if forcesKeyframe {
                frame.pointee.pict_type = AV_PICTURE_TYPE_I
                forcesKeyframe = false
            }
            frame.pointee.color_range = AVCOL_RANGE_MPEG
            withUnsafeMutablePointer(to: &frame.pointee.data) { data in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    withUnsafeMutablePointer(to: &frame.pointee.linesize) { sizes in
                        sizes.withMemoryRebound(to: Int32.self, capacity: 8) { lines in
                            for index in 0..<8 {
                                if index < buffer.planeCount {
                                    planes[index] = (buffer.storage.bytes + buffer.planes[index].offset).assumingMemoryBound(to: UInt8.self)
                                    lines[index] = Int32(buffer.planes[index].bytesPerRow)
                                } else {
                                    planes[index] = nil
                                    lines[index] = 0
                                }
                            }
                        }
                    }
                }
            }
            try FFmpeg.check(avcodec_send_frame(context, frame), "avcodec_send_frame")
        } else {
            try FFmpeg.flushEncoder(context, "video")
        }
        try drain(write: write)
    }

    /// The stream headers the encoder wrote into its extradata (with a global header): the
    /// parameter-set NAL units (H.264 SPS/PPS, HEVC VPS/SPS/PPS) of its Annex B extradata,
    /// without the SEI that names the options. Two encoders with equal parameter sets write
    /// frames one track can hold one after the other.
    package var parameterSets: [[UInt8]] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        let bytes = Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
        let isParameterSet: (UInt8) -> Bool = context.pointee.codec_id == AV_CODEC_ID_HEVC
            ? { (32...34).contains(($0 >> 1) & 0x3F) } : { [7, 8].contains($0 & 0x1F) }
        return Self.annexBUnits(bytes).filter { !$0.isEmpty && isParameterSet($0[0]) }
    }

    /// The NAL units of an Annex B byte stream (split at 00 00 01 start codes, the zero byte
    /// of a four-byte start code dropped).
    package static func annexBUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let start { units.append(trimmed(bytes[start..<index])) }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let start, start < bytes.count { units.append(Array(bytes[start...])) }
        return units
    }

    private static func trimmed(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var end = unit.endIndex
        while end > unit.startIndex, unit[end - 1] == 0 { end -= 1 }
        return Array(unit[unit.startIndex..<end])
    }

    /// Whether `frame` can be stored as it is: a JPEG the camera sent, recorded as MJPEG at its
    /// own size (every JPEG is a key frame; nothing is decoded or encoded).
    package func canPassThrough(_ frame: CompressedFrame?, width: Int, height: Int, codec: MovieOutputSettings.VideoCodec) -> Bool {
        frame?.codec == .jpeg && codec == .mjpeg && Int(context.pointee.width) == width && Int(context.pointee.height) == height
    }

    private func drain(write: PacketSink) throws(CaptureError) {
        let duration = lastDuration
        try FFmpeg.drainEncoder(context, into: packet, "video", prepare: { packet in
            if packet.pointee.duration == 0 { packet.pointee.duration = duration }
        }, write: { (packet) throws(CaptureError) in try write(EncodedPacket(track: .video, packet: packet, timeBase: Self.timeBase)) })
    }
}

extension MovieOutputSettings.VideoCodec {
    /// The FFmpeg encoder that implements the codec.
    package var encoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .mjpeg: return "mjpeg"
        }
    }
}
