import CaptureKitCore
package import CFFmpeg
import Glibc

/// Turns a finished fragmented QuickTime/MP4 recording into an ordinary one (a single index,
/// at the front for MP4 — "faststart"), by copying packets, not re-encoding, with the exact
/// timing the recorder wrote (fragments lose the last packets' durations and the edit lists).
/// The result is written beside the file and renamed over it, so a crash during this step
/// leaves the fragmented file, still playable.
package enum MovieDefragmenter {
    /// Rewrites `path` in place. Wraps `avformat_open_input` / `av_read_frame` /
    /// `av_interleaved_write_frame`.
    package static func defragment(path: String, container: MovieMuxer.Container, timings: [[MovieMuxer.PacketTiming]],
                           timeBases: [AVRational]) throws(CaptureError) {
        let temporary = path + ".finishing"
        var input: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_open_input(&input, path, nil, nil), "avformat_open_input", code: .fileError, path: path)
        defer { avformat_close_input(&input) }
        guard let input else { throw CaptureError(.internalError, "no demuxer", path: path) }

        var output: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_alloc_output_context2(&output, nil, container.formatName, temporary),
                         "avformat_alloc_output_context2", path: temporary)
        guard let output else { throw CaptureError(.outOfMemory, "cannot allocate a muxer", path: temporary) }
        defer { avformat_free_context(output) }

        av_dict_copy(&output.pointee.metadata, input.pointee.metadata, 0)
        for index in 0..<Int(input.pointee.nb_streams) {
            guard let source = input.pointee.streams[index], let stream = avformat_new_stream(output, nil) else {
                throw CaptureError(.outOfMemory, "cannot add a stream", operation: "avformat_new_stream", path: temporary)
            }
            try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), "avcodec_parameters_copy")
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = index < timeBases.count ? timeBases[index] : source.pointee.time_base
            av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
            for item in 0..<Int(source.pointee.nb_side_data) {
                let side = source.pointee.side_data[item]
                guard let copy = av_stream_new_side_data(stream, side.type, Int(side.size)) else { continue }
                copy.update(from: side.data, count: Int(side.size))
            }
        }

        let opened = avio_open(&output.pointee.pb, temporary, AVIO_FLAG_WRITE)
        guard opened >= 0 else { throw FFmpeg.error(opened, "avio_open", "cannot create \(temporary)", code: .fileError, path: temporary) }
        var succeeded = false
        defer {
            avio_closep(&output.pointee.pb)
            if !succeeded { unlink(temporary) }
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if container == .mp4 { av_dict_set(&options, "movflags", "faststart", 0) }
        try FFmpeg.check(avformat_write_header(output, &options), "avformat_write_header", code: .fileError, path: temporary)

        guard let packet = av_packet_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate a packet") }
        var packetToFree: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetToFree) }
        var counts = [Int](repeating: 0, count: Int(input.pointee.nb_streams))
        while true {
            let result = av_read_frame(input, packet)
            if result == FFmpeg.eof { break }
            try FFmpeg.check(result, "av_read_frame", code: .fileError, path: path)
            let index = Int(packet.pointee.stream_index)
            guard let source = input.pointee.streams[index], let target = output.pointee.streams[index] else {
                av_packet_unref(packet)
                continue
            }
            // The demuxer returns each stream's packets in the order they were written.
            if index < timings.count, index < timeBases.count, counts[index] < timings[index].count {
                let timing = timings[index][counts[index]]
                packet.pointee.pts = timing.pts
                packet.pointee.dts = timing.dts
                packet.pointee.duration = timing.duration
                av_packet_rescale_ts(packet, timeBases[index], target.pointee.time_base)
            } else {
                av_packet_rescale_ts(packet, source.pointee.time_base, target.pointee.time_base)
            }
            counts[index] += 1
            packet.pointee.pos = -1
            try FFmpeg.check(av_interleaved_write_frame(output, packet), "av_interleaved_write_frame", "cannot write \(temporary)", code: .fileError, path: temporary)
        }
        try FFmpeg.check(av_write_trailer(output), "av_write_trailer", code: .fileError, path: temporary)
        avio_closep(&output.pointee.pb)
        guard rename(temporary, path) == 0 else {
            throw CaptureError(.fileError, "cannot replace \(path)", errno: errno, operation: "rename", path: path)
        }
        succeeded = true
    }
}
