import CaptureKitCore

/// What encodes one of the movie output's video codecs and what it costs, so an application can
/// choose a codec that a live recording keeps up with. AVFoundation has no such type: on Apple
/// hardware every codec `AVCaptureMovieFileOutput.availableVideoCodecTypes` lists has a
/// hardware encoder. Here every encoder is FFmpeg's, in software:
///
/// | codec | encoder | hardware | CPU per 1080p frame (H.264 = 1) | real-time recording |
/// |---|---|---|---|---|
/// | `.h264` | libx264 | no | 1 | yes (about one core at 1080p30) |
/// | `.mjpeg` | FFmpeg's `mjpeg` | no | 0.6 | yes (one thread; an MJPEG camera's frames are stored as sent) |
/// | `.hevc` | libx265 | no | 4 | no (about four cores at 1080p30) |
///
/// The costs are CPU time per frame measured with FFmpeg 5.1 (x264 0.164, x265 3.5) on a
/// 1080p test pattern, at the presets a live recording starts with (`superfast` for H.264's
/// default `veryfast`, with its short lookahead; `veryfast` for HEVC, which cannot switch
/// presets within one track); x265's own `ultrafast` still costs twice H.264.
///
/// ```swift
/// for codec in movieOutput.availableVideoCodecs {
///     let info = codec.info
///     print(codec, info.encoderName, info.isHardwareAccelerated, info.relativeCost, info.isSuitedToRealTimeRecording)
/// }
/// ```
public struct VideoCodecInfo: Sendable, Hashable {
    /// The codec described.
    public let codec: MovieOutputSettings.VideoCodec
    /// The FFmpeg encoder that writes it: `libx264`, `libx265` or `mjpeg`.
    public let encoderName: String
    /// Whether frames are encoded by a hardware block (VA-API, V4L2 memory-to-memory, NVENC…).
    /// CaptureKit opens FFmpeg's software encoders only, so this is false for every codec: no
    /// hardware is probed, and none is claimed.
    public let isHardwareAccelerated: Bool
    /// The CPU time the encoder spends per frame relative to H.264's at a live recording's
    /// preset (1); see the table above. A property of the encoder, the same on every machine.
    public let relativeCost: Double
    /// Whether a live recording is expected to keep up: a hardware encoder, or a software one
    /// that costs no more than H.264 at its live preset, which takes about one core of a small
    /// machine at 1080p30. A codec that is not suited still records, and the frames it cannot
    /// keep up with are dropped and counted (`droppedSampleCount`).
    public let isSuitedToRealTimeRecording: Bool

    /// What encodes `codec`.
    public init(_ codec: MovieOutputSettings.VideoCodec) {
        self.codec = codec
        encoderName = codec.encoderName
        isHardwareAccelerated = false
        switch codec {
        case .h264: relativeCost = 1
        case .mjpeg: relativeCost = 0.6
        case .hevc: relativeCost = 4
        }
        isSuitedToRealTimeRecording = isHardwareAccelerated || relativeCost <= 1
    }

    /// Whether this machine's FFmpeg has the encoder (libx265 is optional in some builds).
    public var isAvailable: Bool { FFmpeg.hasEncoder(encoderName) }
}

extension MovieOutputSettings.VideoCodec {
    /// What encodes the codec and what it costs.
    public var info: VideoCodecInfo { VideoCodecInfo(self) }
}
