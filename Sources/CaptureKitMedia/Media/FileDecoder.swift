import CaptureKitCore
package import CFFmpeg
import Foundation

/// Decodes one stream of a media file from its start to its end, or of a live stream until it
/// breaks: its own `AVFormatContext` (other streams discarded by the demuxer) and
/// `AVCodecContext`. Used by one thread at a time.
package final class FileDecoder: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg decoder used by one thread at a time.
    package let input: MediaInput
    package let stream: UnsafeMutablePointer<AVStream>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var draining = false
    private var finished = false
    /// Whether a packet the demuxer marks corrupt or the decoder refuses is skipped (a live
    /// stream: lost UDP packets, a join in the middle of a group of pictures) instead of failing
    /// the stream, as a file's would.
    package var skipsDamagedPackets = false
    /// Sees every packet of the stream before the decoder does, in decode order (lent for the
    /// call): what a network camera keeps to record as it came.
    package var packetObserver: ((UnsafeMutablePointer<AVPacket>) -> Void)?
    /// Sees the packets of the stream ``alsoRead(_:observer:)`` named (lent for the call): a
    /// network camera's sound, read from the same connection as its pictures.
    private var otherPacketObserver: ((UnsafeMutablePointer<AVPacket>) -> Void)?
    private var otherStreamIndex: Int32?

    /// A decoder for `input`'s main stream of `type` (``openCodec(for:live:path:)``).
    package init(input: MediaInput, type: AVMediaType, live: Bool = false) throws(CaptureError) {
        self.input = input
        let kind = type == AVMEDIA_TYPE_VIDEO ? "video" : "audio"
        guard let stream = input.bestStream(of: type) else {
            throw CaptureError(.unsupportedFile, "the file has no \(kind) stream", path: input.path)
        }
        self.stream = stream
        for other in input.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        guard let packet = av_packet_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a packet", operation: "av_packet_alloc", path: input.path)
        }
        self.packet = packet
        do throws(CaptureError) {
            codec = try Self.openCodec(for: stream, live: live, path: input.path)
        } catch {
            var freeing: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&freeing)
            throw error
        }
    }

    /// A decoder for `stream`, open: wraps `avcodec_find_decoder`, `avcodec_parameters_to_context`
    /// and `avcodec_open2`. A `live` decoder hands each frame out as soon as its packet is in
    /// (slice threads only, `AV_CODEC_FLAG_LOW_DELAY`): frame threads would hold back a frame
    /// per thread. The caller frees it (`avcodec_free_context`).
    package static func openCodec(for stream: UnsafeMutablePointer<AVStream>, live: Bool,
                                  path: String) throws(CaptureError) -> UnsafeMutablePointer<AVCodecContext> {
        let kind = stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "audio" : "video"
        guard let parameters = stream.pointee.codecpar else {
            throw CaptureError(.internalError, "\(kind) stream without codec parameters", path: path)
        }
        let codecID = parameters.pointee.codec_id
        guard let decoder = avcodec_find_decoder(codecID) else {
            throw CaptureError(.unsupportedFile, "no decoder for the \(kind) codec \(String(cString: avcodec_get_name(codecID)))",
                               operation: "avcodec_find_decoder", path: path)
        }
        guard let codec = avcodec_alloc_context3(decoder) else {
            throw CaptureError(.outOfMemory, "cannot allocate a \(kind) decoder", operation: "avcodec_alloc_context3", path: path)
        }
        do throws(CaptureError) {
            try FFmpeg.check(avcodec_parameters_to_context(codec, parameters), "avcodec_parameters_to_context", path: path)
            codec.pointee.pkt_timebase = stream.pointee.time_base
            // Let libavcodec pick the thread count: unpaced benchmarks want every core.
            codec.pointee.thread_count = 0
            if live {
                codec.pointee.thread_type = FF_THREAD_SLICE
                codec.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_LOW_DELAY))
            }
            try FFmpeg.check(avcodec_open2(codec, decoder, nil), "avcodec_open2", code: .unsupportedFile, path: path)
        } catch {
            var freeing: UnsafeMutablePointer<AVCodecContext>? = codec
            avcodec_free_context(&freeing)
            throw error
        }
        return codec
    }

    deinit {
        var freeingCodec: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&freeingCodec)
        var freeingPacket: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&freeingPacket)
    }

    /// The stream's time base (what frame timestamps count in).
    package var timeBase: AVRational { stream.pointee.time_base }

    /// Restarts decoding at the keyframe at or before `timestamp` (in ``timeBase``): wraps
    /// `av_seek_frame` with `AVSEEK_FLAG_BACKWARD` and `avcodec_flush_buffers`. Returns false
    /// when the demuxer cannot seek there; the decoder must then not be used further.
    package func seek(toKeyframeAtOrBefore timestamp: Int64) -> Bool {
        guard av_seek_frame(input.context, stream.pointee.index, timestamp, AVSEEK_FLAG_BACKWARD) >= 0 else { return false }
        avcodec_flush_buffers(codec)
        draining = false
        finished = false
        return true
    }

    /// Decodes the next frame into `frame` (unreferenced first by libavcodec): wraps
    /// `av_read_frame`, `avcodec_send_packet` and `avcodec_receive_frame`. Returns false at the end
    /// of the file once every buffered frame is out; throws `.corruptFile` when reading or
    /// decoding fails.
    package func decode(into frame: UnsafeMutablePointer<AVFrame>) throws(CaptureError) -> Bool {
        while !finished {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 { return true }
            if received == FFmpeg.eof {
                finished = true
                break
            }
            guard received == FFmpeg.again, !draining else {
                if skipsDamagedPackets, !draining {
                    try feed()
                    continue
                }
                throw corrupt(received, "avcodec_receive_frame", "cannot decode the file")
            }
            try feed()
        }
        return false
    }

    /// Sends the decoder the next packet of its stream, or the end-of-stream flush.
    private func feed() throws(CaptureError) {
        if try read() {
            defer { av_packet_unref(packet) }
            try send(packet)
        } else {
            draining = true
            try send(nil)
        }
    }

    /// Reads the next packet of the stream into `packet` (the caller unreferences it) and shows
    /// it to ``packetObserver``: wraps `av_read_frame`. Returns false at the end of the stream.
    private func read() throws(CaptureError) -> Bool {
        while true {
            let read = av_read_frame(input.context, packet)
            if read == FFmpeg.eof {
                if let io = input.context.pointee.pb, io.pointee.error < 0 {
                    throw corrupt(io.pointee.error, "av_read_frame", "cannot read the file")
                }
                return false
            }
            guard read >= 0 else { throw corrupt(read, "av_read_frame", "cannot read the file") }
            guard packet.pointee.stream_index == stream.pointee.index else {
                if packet.pointee.stream_index == otherStreamIndex { otherPacketObserver?(packet) }
                av_packet_unref(packet)
                continue
            }
            // The demuxer's own verdict (a packet cut short by the end of the file, say): what
            // `ffmpeg -xerror` stops on. Decoding it would show garbage, so a file fails.
            if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                let at = describe(packet.pointee.pts)
                av_packet_unref(packet)
                guard skipsDamagedPackets else {
                    throw CaptureError(.corruptFile, "the file is damaged: a \(kind) packet at \(at) is corrupt",
                                       operation: "av_read_frame", path: input.path)
                }
                continue
            }
            packetObserver?(packet)
            return true
        }
    }

    /// Has the demuxer read `other` too (it discards every stream but the decoder's) and shows
    /// each of its packets to `observer` while reading the decoder's: one connection for a
    /// network camera's pictures and sound.
    package func alsoRead(_ other: UnsafeMutablePointer<AVStream>, observer: @escaping (UnsafeMutablePointer<AVPacket>) -> Void) {
        other.pointee.discard = AVDISCARD_DEFAULT
        otherStreamIndex = other.pointee.index
        otherPacketObserver = observer
    }

    /// Reads the next packet of the stream and shows it to ``packetObserver`` without decoding
    /// it: what a network camera does while no output wants its pixels. The decoder is out of
    /// step afterwards until ``catchUp(on:)``. Returns false at the end of the stream.
    package func skipPacket() throws(CaptureError) -> Bool {
        guard try read() else { return false }
        av_packet_unref(packet)
        return true
    }

    /// Brings a decoder that skipped packets back in step: forgets what it held
    /// (`avcodec_flush_buffers`) and decodes `packets`, the stream since its last keyframe in
    /// decode order, discarding their frames (they went out undecoded). The next ``decode(into:)``
    /// then decodes the packet after them. Returns how many frames it decoded.
    package func catchUp(on packets: [CompressedFrame], using frame: UnsafeMutablePointer<AVFrame>) -> Int {
        var decoded = 0
        avcodec_flush_buffers(codec)
        let sending = UnsafeMutablePointer<AVPacket>.allocate(capacity: 1)
        defer { sending.deallocate() }
        for coded in packets {
            // Not reference counted: libavcodec copies the bytes (with the padding it needs).
            sending.initialize(to: AVPacket())
            sending.pointee.data = coded.storage.bytes.assumingMemoryBound(to: UInt8.self)
            sending.pointee.size = Int32(clamping: coded.byteCount)
            sending.pointee.pts = FFmpeg.noTimestamp
            sending.pointee.dts = FFmpeg.noTimestamp
            if coded.isKeyFrame { sending.pointee.flags = AV_PKT_FLAG_KEY }
            // A packet the decoder refuses is skipped, as while decoding live.
            guard avcodec_send_packet(codec, sending) >= 0 else { continue }
            while avcodec_receive_frame(codec, frame) >= 0 {
                av_frame_unref(frame)
                decoded += 1
            }
        }
        return decoded
    }

    private func send(_ packet: UnsafeMutablePointer<AVPacket>?) throws(CaptureError) {
        let sent = avcodec_send_packet(codec, packet)
        if sent < 0, sent != FFmpeg.eof, packet != nil, skipsDamagedPackets { return }
        // EAGAIN cannot happen (every frame was received first); EOF only after a second flush.
        guard sent >= 0 || sent == FFmpeg.eof else { throw corrupt(sent, "avcodec_send_packet", "cannot decode the file") }
    }

    private var kind: String { stream.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "audio" : "video" }

    /// A packet timestamp as seconds, for messages.
    private func describe(_ pts: Int64) -> String {
        guard pts != FFmpeg.noTimestamp, let time = MediaStreamInfo.time(pts, stream.pointee.time_base) else { return "an unknown time" }
        return String(format: "%.3f s", time.seconds)
    }

    private func corrupt(_ result: Int32, _ operation: String, _ what: String) -> CaptureError {
        var error = FFmpeg.error(result, operation, code: .corruptFile, path: input.path)
        error.message = "\(what): \(FFmpeg.message(result))"
        return error
    }

    /// The frame's presentation time in stream ticks: libavcodec's best guess, else its pts.
    package static func timestamp(of frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        let best = frame.pointee.best_effort_timestamp
        if best != FFmpeg.noTimestamp { return best }
        let pts = frame.pointee.pts
        return pts == FFmpeg.noTimestamp ? nil : pts
    }
}
