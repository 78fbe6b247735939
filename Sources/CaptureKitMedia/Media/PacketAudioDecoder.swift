import CaptureKitCore
package import CFFmpeg

/// Decodes the packets of one audio stream that another decoder's demuxer reads (a network
/// camera's sound, read with its pictures through ``FileDecoder/alsoRead(_:observer:)``) into
/// interleaved buffers of one format. Packets the decoder refuses are skipped, as on any live
/// stream. Used by one thread at a time.
package final class PacketAudioDecoder: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg decoder used by one thread at a time.
    /// Decoded sound and the stream time of its first sample.
    package struct Decoded {
        package var buffer: AudioBuffer
        /// In ``PacketAudioDecoder/timeBase`` ticks; nil when the stream did not say.
        package var ticks: Int64?
    }

    package let stream: UnsafeMutablePointer<AVStream>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let converter: DecodedAudioConverter

    /// A decoder of `stream` to `format`; `path` names the source in errors.
    package init(stream: UnsafeMutablePointer<AVStream>, format: AudioFormat, path: String) throws(CaptureError) {
        guard let frame = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: path)
        }
        self.frame = frame
        self.stream = stream
        do throws(CaptureError) {
            codec = try FileDecoder.openCodec(for: stream, live: true, path: path)
        } catch {
            var freeing: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&freeing)
            throw error
        }
        converter = DecodedAudioConverter(format: format, path: path)
    }

    deinit {
        var freeingCodec: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&freeingCodec)
        var freeingFrame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeingFrame)
    }

    /// The format buffers come out in.
    package var format: AudioFormat { converter.format }

    /// The stream's time base (what ``Decoded/ticks`` count in).
    package var timeBase: AVRational { stream.pointee.time_base }

    /// Decodes `packet` (lent for the call): the sound it completed, oldest first. Wraps
    /// `avcodec_send_packet` and `avcodec_receive_frame`.
    package func decode(_ packet: UnsafeMutablePointer<AVPacket>) throws(CaptureError) -> [Decoded] {
        guard avcodec_send_packet(codec, packet) >= 0 else { return [] }
        var decoded: [Decoded] = []
        while avcodec_receive_frame(codec, frame) >= 0 {
            defer { av_frame_unref(frame) }
            let ticks = FileDecoder.timestamp(of: frame)
            if let buffer = try converter.convert(frame) { decoded.append(Decoded(buffer: buffer, ticks: ticks)) }
        }
        return decoded
    }
}
