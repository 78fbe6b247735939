import CaptureKitCore
package import CFFmpeg

/// A copy of a stream's `AVCodecParameters` (codec, size, extradata with the H.264/HEVC
/// parameter sets): an encoder's, shared by every connection of a stream output, or a network
/// camera's, the track of a recording that stores its packets as they came.
package final class CodecParameters: @unchecked Sendable {
    // Unchecked Sendable: written once in init, only read afterwards.
    package let pointer: UnsafeMutablePointer<AVCodecParameters>

    /// Copies `codec`'s parameters. Wraps `avcodec_parameters_from_context`.
    package init(_ codec: UnsafeMutablePointer<AVCodecContext>) throws(CaptureError) {
        pointer = try Self.allocate()
        _ = try FFmpeg.check(avcodec_parameters_from_context(pointer, codec), "avcodec_parameters_from_context")
    }

    /// Copies a demuxed stream's parameters. Wraps `avcodec_parameters_copy`.
    package init(copying parameters: UnsafePointer<AVCodecParameters>) throws(CaptureError) {
        pointer = try Self.allocate()
        _ = try FFmpeg.check(avcodec_parameters_copy(pointer, parameters), "avcodec_parameters_copy")
    }

    private static func allocate() throws(CaptureError) -> UnsafeMutablePointer<AVCodecParameters> {
        guard let pointer = avcodec_parameters_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate codec parameters") }
        return pointer
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecParameters>? = self.pointer
        avcodec_parameters_free(&pointer)
    }

    /// The recording codec these parameters are, when a movie can store its packets as they are.
    package var videoCodec: MovieOutputSettings.VideoCodec? {
        switch pointer.pointee.codec_id {
        case AV_CODEC_ID_H264: return .h264
        case AV_CODEC_ID_HEVC: return .hevc
        case AV_CODEC_ID_MJPEG: return .mjpeg
        default: return nil
        }
    }

    /// The codec's name, for messages (`h264`).
    package var codecName: String { String(cString: avcodec_get_name(pointer.pointee.codec_id)) }

    /// Whether `other` describes the same coded stream: codec, size and parameter sets.
    package func matches(_ other: CodecParameters) -> Bool {
        let a = pointer.pointee, b = other.pointer.pointee
        guard a.codec_id == b.codec_id, a.width == b.width, a.height == b.height, a.extradata_size == b.extradata_size else { return false }
        guard a.extradata_size > 0, let x = a.extradata, let y = b.extradata else { return true }
        return memcmp(x, y, Int(a.extradata_size)) == 0
    }
}
