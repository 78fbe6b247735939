import CaptureKitCore

/// How a movie file output encodes one connection (`outputSettings(for:)` of
/// `AVCaptureMovieFileOutput`).
///
/// ```swift
/// var settings = MovieOutputSettings()
/// settings.videoCodec = .hevc
/// settings.videoQuality = .bitRate(4_000_000)
/// movieOutput.setOutputSettings(settings, for: movieOutput.connection(with: .video)!)
/// ```
public struct MovieOutputSettings: Sendable, Hashable {
    /// Video codecs (`AVVideoCodecType`).
    public enum VideoCodec: String, Sendable, Hashable, CaseIterable {
        /// H.264 through libx264: the default, plays everywhere.
        case h264
        /// HEVC / H.265 through libx265: half the size at the same quality, slower to encode.
        case hevc
        /// Motion JPEG: every frame a JPEG; large files, trivial to cut.
        case mjpeg
    }

    /// Audio codecs.
    public enum AudioCodec: String, Sendable, Hashable, CaseIterable {
        /// AAC-LC: the default.
        case aac
        /// Uncompressed 16-bit PCM (in QuickTime .mov and Matroska .mkv files).
        case pcm
        /// Opus through libopus (in Matroska .mkv and MP4 files).
        case opus
    }

    /// How much data the encoder may spend.
    public enum Quality: Sendable, Hashable {
        /// Constant quality: x264/x265 CRF 0...51 (lower is better, 23 default), or JPEG
        /// quantizer 2...31 for MJPEG.
        case constantQuality(Int)
        /// A target bit rate in bits per second.
        case bitRate(Int)
    }

    /// The video codec.
    public var videoCodec: VideoCodec = .h264
    /// The video quality (default: CRF 23, ffmpeg's default; JPEG quantizer 3 for MJPEG).
    public var videoQuality: Quality?
    /// The longest time between keyframes; nil for "one fragment interval" (so every fragment
    /// starts with a keyframe and is playable on its own) or 2 s when fragments are off.
    public var keyframeInterval: MediaTime?
    /// libx264/libx265 speed preset; faster presets make bigger files for less CPU.
    public var encoderPreset: EncoderPreset = .veryfast
    /// Whether video a camera already sends coded in ``videoCodec`` is recorded as it came — no
    /// decode, no encode, just its timestamps rebased to the file: a network camera's H.264 or
    /// HEVC (recorded from its first keyframe), a webcam's Motion JPEG recorded as MJPEG.
    /// ``videoQuality``, ``keyframeInterval`` and ``encoderPreset`` then do not apply: the
    /// camera chose them. False decodes and encodes again (`capture record --transcode`).
    public var passThrough = true
    /// The audio codec.
    public var audioCodec: AudioCodec = .aac
    /// The audio bit rate in bits per second (ignored for PCM).
    public var audioBitRate: Int = 128_000

    /// Default settings: H.264 (CRF 23, veryfast) and AAC at 128 kbit/s.
    public init() {}

    /// x264/x265 presets.
    public enum EncoderPreset: String, Sendable, Hashable, CaseIterable {
        /// The fastest preset and the largest files.
        case ultrafast
        /// What live recordings start with when `veryfast` is asked for, to keep up.
        case superfast
        /// The default (a live recording starts one step faster, at `superfast`).
        case veryfast
        /// Smaller files for more CPU.
        case faster
        /// Smaller files for more CPU.
        case fast
        /// x264's own default; better suited to encoding files than live capture.
        case medium
        /// The smallest files; for offline encoding.
        case slow
    }
}
