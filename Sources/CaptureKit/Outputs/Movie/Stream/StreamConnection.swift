internal import CFFmpeg
import Foundation
import Synchronization

/// One connection to a destination: a libavformat muxer whose output is the network (or, for
/// HLS, a playlist and its segments), opened, written and closed on one publisher thread.
/// Every blocking call inside FFmpeg polls ``NetworkInterrupt``, so a connection that stalls
/// ends at its deadline and one being stopped ends at once.
final class StreamConnection {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let destination: StreamDestination
    private var streams: [EncodedPacket.Track: (index: Int32, timeBase: AVRational)] = [:]
    private var open = false
    /// The SRT socket's statistics, for an `srt://` destination whose socket could be found.
    private(set) var link: SRTLink?

    /// Connects and writes the stream headers. Wraps `avformat_alloc_output_context2`,
    /// `avio_open2` and `avformat_write_header`; `.connectionFailed` (or `.fileError` for HLS)
    /// with the reason FFmpeg logged, the URL redacted.
    init(to destination: StreamDestination, tracks: [StreamTrack], keyframeInterval: MediaTime,
         interrupt: NetworkInterrupt) throws(CaptureError) {
        try FFmpeg.prepare()
        self.destination = destination
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let failure = destination.kind == .hls ? CaptureError.Code.fileError : .connectionFailed
        _ = try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, destination.formatName, destination.address),
                             "avformat_alloc_output_context2", "cannot publish to \(destination)", code: .notSupported)
        guard let allocated else { throw CaptureError(.outOfMemory, "cannot allocate a muxer for \(destination)") }
        context = allocated
        context.pointee.interrupt_callback = interrupt.callback
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        for track in tracks {
            guard let stream = avformat_new_stream(context, nil) else { throw CaptureError(.outOfMemory, "cannot add a stream for \(destination)") }
            _ = try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, track.parameters.pointer), "avcodec_parameters_copy")
            stream.pointee.time_base = track.timeBase
            streams[track.track] = (stream.pointee.index, track.timeBase)
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch destination.kind {
        case .rtmp, .rtmps:
            // No seek back to write the duration at the end: a network stream cannot seek.
            av_dict_set(&options, "flvflags", "no_duration_filesize", 0)
        case .srt:
            break
        case .rtsp:
            av_dict_set(&options, "rtsp_transport", destination.rtspTransport.rawValue, 0)
        case .hls:
            av_dict_set(&options, "hls_time", String(format: "%.3f", keyframeInterval.seconds), 0)
            av_dict_set(&options, "hls_segment_type", destination.hlsSegmentFormat.rawValue, 0)
            var flags = ["independent_segments", "temp_file", "program_date_time"]
            switch destination.hlsPlaylist {
            case .rolling(let segments):
                av_dict_set(&options, "hls_list_size", String(max(1, segments)), 0)
                flags.append("delete_segments")
            case .event:
                av_dict_set(&options, "hls_list_size", "0", 0)
                av_dict_set(&options, "hls_playlist_type", "event", 0)
            }
            av_dict_set(&options, "hls_flags", flags.joined(separator: "+"), 0)
            if destination.hlsSegmentFormat == .fmp4 {
                let base = ((destination.address as NSString).lastPathComponent as NSString).deletingPathExtension
                av_dict_set(&options, "hls_fmp4_init_filename", "\(base)-init.mp4", 0)
            }
        }
        let (opened, reason) = FFmpeg.withErrorLine(first: true) { () -> Int32 in
            interrupt.arm(destination.isListener ? nil : NetworkInterrupt.connectTimeout)
            defer { interrupt.arm(nil) }
            if (context.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0 {
                var callback = interrupt.callback
                let result = avio_open2(&context.pointee.pb, destination.address, AVIO_FLAG_WRITE, &callback, &options)
                if result < 0 { return result }
            }
            return avformat_write_header(context, &options)
        }
        guard opened >= 0 else {
            close()
            throw interrupt.error(opened, reason: reason, doing: "cannot connect to \(destination)", code: failure)
        }
        open = true
        if destination.kind == .srt { link = SRTLink(context.pointee.pb) }
        for track in tracks {
            // The muxer may choose its own time bases (FLV: milliseconds; RTP: the clock rate).
            if let index = streams[track.track]?.index, let stream = context.pointee.streams[Int(index)] {
                streams[track.track] = (index, stream.pointee.time_base)
            }
        }
    }

    deinit {
        close()
        avformat_free_context(context)
    }

    /// Sends one packet. Wraps `av_write_frame` (not the interleaving call, which would hold
    /// packets back: the recording hands them over in order already); `.connectionLost` when
    /// the link breaks or stalls.
    func send(_ packet: HeldPacket, interrupt: NetworkInterrupt) throws(CaptureError) {
        guard let stream = streams[packet.track] else { return }
        let failure = destination.kind == .hls ? CaptureError.Code.fileError : .connectionLost
        try packet.lend(shiftedBack: 0) { (lent) throws(CaptureError) in
            lent.packet.pointee.stream_index = stream.index
            av_packet_rescale_ts(lent.packet, lent.timeBase, stream.timeBase)
            let (result, reason) = FFmpeg.withErrorLine { () -> Int32 in
                interrupt.arm(NetworkInterrupt.stallTimeout)
                defer { interrupt.arm(nil) }
                let written = av_write_frame(context, lent.packet)
                if written >= 0, let pb = context.pointee.pb, pb.pointee.error < 0 { return pb.pointee.error }
                return written
            }
            guard result >= 0 else {
                throw interrupt.error(result, reason: reason, doing: "the stream to \(destination) broke", code: failure)
            }
        }
    }

    /// Ends the stream cleanly (the trailer: RTSP TEARDOWN, HLS's last segment and `#EXT-X-ENDLIST`)
    /// within the stall timeout, then closes. Wraps `av_write_trailer`.
    func finish(interrupt: NetworkInterrupt) {
        guard open else { return }
        interrupt.arm(NetworkInterrupt.stallTimeout)
        _ = av_write_trailer(context)
        interrupt.arm(nil)
        close()
    }

    /// Closes without a trailer.
    func close() {
        open = false
        link = nil
        if (context.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0, context.pointee.pb != nil {
            avio_closep(&context.pointee.pb)
        }
    }
}

/// One track a connection carries: the encoder's codec parameters and time base.
struct StreamTrack: Sendable {
    var track: EncodedPacket.Track
    var parameters: CodecParameters
    var timeBase: AVRational
}
