import CaptureKitCore
package import CFFmpeg

/// One stream of a media file, as ``MediaFileInfo`` reports it (`ffprobe -show_streams`).
public struct MediaStreamInfo: Sendable, Hashable {
    /// What a stream carries (`AVMediaType`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Pictures.
        case video
        /// Sound.
        case audio
        /// Subtitles or captions.
        case subtitle
        /// Timed data (chapters, telemetry, timecode).
        case data
        /// An attached file (a Matroska font).
        case attachment
        /// Anything else.
        case unknown
    }

    /// The stream's index in the file.
    public var index: Int
    /// What it carries.
    public var kind: Kind
    /// FFmpeg's short codec name (`h264`, `aac`).
    public var codec: String
    /// FFmpeg's long codec name (`H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10`).
    public var codecDescription: String
    /// The codec profile (`High`, `LC`), when the codec has profiles.
    public var profile: String?
    /// When the stream starts on the file's timeline.
    public var startTime: MediaTime?
    /// How long the stream lasts: from the container, or measured from its packets when
    /// frames were counted.
    public var duration: MediaTime?
    /// Bits per second, when known.
    public var bitRate: Int?
    /// Video frames (or audio packets) in the stream: from the container's index when it has
    /// one, else counted packet by packet; nil when not counted.
    public var frameCount: Int?
    /// Frame width in pixels (video).
    public var width: Int?
    /// Frame height in pixels (video).
    public var height: Int?
    /// FFmpeg's name of the decoded pixel layout (`yuv420p`, `yuv420p10le`) (video).
    public var pixelFormatName: String?
    /// The decoded layout as a ``PixelFormat``, when CaptureKit has it (video).
    public var pixelFormat: PixelFormat?
    /// The average frame duration, 1 / the frame rate (`avg_frame_rate`, else `r_frame_rate`) (video).
    public var frameDuration: MediaTime?
    /// Degrees to rotate the stored picture counter-clockwise for display, from the display
    /// matrix (`av_display_rotation_get`, what `ffprobe` reports as rotation), in 0..<360; 0
    /// when the file has no matrix. Phones' portrait videos usually say 90 or 270.
    public var rotation: Int
    /// Whether the stream is cover art rather than video (`AV_DISPOSITION_ATTACHED_PIC`).
    public var isAttachedPicture: Bool
    /// Samples per second (audio).
    public var sampleRate: Int?
    /// Channels (audio).
    public var channelCount: Int?
    /// FFmpeg's name of the channel layout (`mono`, `stereo`, `5.1`) (audio).
    public var channelLayout: String?
    /// FFmpeg's name of the decoded sample format (`fltp`, `s16`) (audio).
    public var sampleFormatName: String?
    /// The stream's tags (`language`, `handler_name`, …).
    public var metadata: [String: String]

    /// The frame rate in frames per second (video), from ``frameDuration``.
    public var frameRate: Double? { frameDuration.map { 1 / $0.seconds } }

    /// Reads what the stream's header says; `frameCount` and `duration` may be completed by
    /// counting packets.
    package init(_ stream: UnsafeMutablePointer<AVStream>) {
        let s = stream.pointee
        let parameters = s.codecpar?.pointee
        index = Int(s.index)
        let type = parameters?.codec_type ?? AVMEDIA_TYPE_UNKNOWN
        switch type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        let codecID = parameters?.codec_id ?? AV_CODEC_ID_NONE
        codec = String(cString: avcodec_get_name(codecID))
        codecDescription = avcodec_descriptor_get(codecID)?.pointee.long_name.map { String(cString: $0) } ?? codec
        profile = parameters.flatMap { avcodec_profile_name(codecID, $0.profile) }.map { String(cString: $0) }
        let timeBase = s.time_base
        startTime = s.start_time == FFmpeg.noTimestamp ? nil : Self.time(s.start_time, timeBase)
        duration = s.duration == FFmpeg.noTimestamp || s.duration <= 0 ? nil : Self.time(s.duration, timeBase)
        bitRate = parameters.flatMap { $0.bit_rate > 0 ? Int($0.bit_rate) : nil }
        frameCount = s.nb_frames > 0 ? Int(s.nb_frames) : nil
        isAttachedPicture = s.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        metadata = MediaFileInfo.tags(s.metadata)
        rotation = Self.rotation(stream)
        if kind == .video, let parameters {
            width = Int(parameters.width)
            height = Int(parameters.height)
            let format = AVPixelFormat(rawValue: parameters.format)
            pixelFormatName = av_get_pix_fmt_name(format).map { String(cString: $0) }
            pixelFormat = PixelFormat.allCases.first { $0.avPixelFormat == format }
            frameDuration = [s.avg_frame_rate, s.r_frame_rate].first(where: \.isPositive)
                .map { MediaTime(value: Int64($0.den), timescale: $0.num) }
        }
        if kind == .audio, let parameters {
            sampleRate = Int(parameters.sample_rate)
            channelCount = Int(parameters.ch_layout.nb_channels)
            sampleFormatName = av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format)).map { String(cString: $0) }
            var layout = parameters.ch_layout
            channelLayout = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer -> String? in
                guard let base = buffer.baseAddress, av_channel_layout_describe(&layout, base, 128) > 0 else { return nil }
                return String(cString: base)
            }
        }
    }

    /// The one stream of a still image FFmpeg does not read (a HEIF photo): coded with
    /// `codec` (FFmpeg's name), one frame of `width`×`height`.
    package init(stillImage codec: String, width: Int, height: Int) {
        index = 0
        kind = .video
        self.codec = codec
        codecDescription = avcodec_descriptor_get_by_name(codec)?.pointee.long_name.map { String(cString: $0) } ?? codec
        frameCount = 1
        self.width = width
        self.height = height
        rotation = 0
        isAttachedPicture = false
        metadata = [:]
    }

    /// `ticks` of `timeBase` as a media time (exact: the time base's denominator is the timescale).
    package static func time(_ ticks: Int64, _ timeBase: AVRational) -> MediaTime? {
        guard timeBase.isPositive else { return nil }
        return MediaTime(value: ticks * Int64(timeBase.num), timescale: timeBase.den)
    }

    /// The display matrix's rotation: wraps `av_stream_get_side_data(AV_PKT_DATA_DISPLAYMATRIX)`
    /// and `av_display_rotation_get`.
    private static func rotation(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return 0 }
        let degrees = UnsafeRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard degrees.isFinite else { return 0 }
        let rounded = Int(degrees.rounded()) % 360
        return rounded < 0 ? rounded + 360 : rounded
    }
}
