import CaptureKitCore
import Foundation
package import CFFmpeg

/// The container side of a recording: a libavformat muxer writing QuickTime, MP4 or Matroska,
/// fragmented so that a killed process leaves a readable file (every `fragmentInterval` the
/// muxer writes a self-contained fragment and flushes it to the kernel).
package final class MovieMuxer {
    /// Containers by file extension.
    package enum Container: String, CaseIterable {
        case mov, mp4, mkv

        /// The container for a file name, by its extension (case-insensitive).
        package init?(url: URL) {
            self.init(rawValue: url.pathExtension.lowercased())
        }

        package var formatName: String {
            switch self {
            case .mov: return "mov"
            case .mp4: return "mp4"
            case .mkv: return "matroska"
            }
        }

        /// Whether the container can hold the codec.
        package func supports(_ codec: MovieOutputSettings.AudioCodec) -> Bool {
            switch codec {
            case .aac: return true
            case .pcm: return self == .mov || self == .mkv
            case .opus: return self == .mkv || self == .mp4
            }
        }
    }

    package let container: Container
    package let path: String
    private let context: UnsafeMutablePointer<AVFormatContext>
    package private(set) var videoStream: UnsafeMutablePointer<AVStream>?
    package private(set) var audioStream: UnsafeMutablePointer<AVStream>?
    private var videoTimeBase = AVRational()
    private var audioTimeBase = AVRational()
    private var headerWritten = false
    private var closed = false
    /// Bytes of packets handed to the muxer: what the file will hold, give or take the index.
    package private(set) var payloadBytes: Int64 = 0
    /// How long the file was after the last write that went through: with every packet
    /// flushed, the muxer only ever leaves the file between whole fragments (clusters), so a
    /// write that fails (a full disk) can be undone by cutting the file back to this.
    package private(set) var completeBytes: Int64 = 0
    /// Every packet's timing as written, per stream: a fragmented file keeps coarser timing
    /// than this (no per-packet duration for the last samples, no edit lists), so turning it
    /// into an ordinary file restores the exact values from here.
    package private(set) var timings: [[PacketTiming]] = []

    /// One packet's timestamps in its stream's time base.
    package struct PacketTiming {
        package var pts: Int64
        package var dts: Int64
        package var duration: Int64
    }

    /// Packets written to the video track so far.
    package var videoPacketCount: Int { videoStream.map { timings[Int($0.pointee.index)].count } ?? 0 }

    /// Packets written to all tracks so far.
    package var packetCount: Int { timings.reduce(0) { $0 + $1.count } }

    /// Each stream's time base as the muxer chose it.
    package var timeBases: [AVRational] {
        (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]?.pointee.time_base ?? AVRational(num: 1, den: 1) }
    }

    /// Creates the file and the muxer. Wraps `avformat_alloc_output_context2` and `avio_open`.
    /// Throws `.fileError` when the file cannot be created.
    package init(path: String, container: Container) throws(CaptureError) {
        try FFmpeg.prepare()
        self.path = path
        self.container = container
        var context: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_alloc_output_context2(&context, nil, container.formatName, path),
                         "avformat_alloc_output_context2", code: .unsupportedFormat, path: path)
        guard let context else { throw CaptureError(.outOfMemory, "cannot allocate a muxer", path: path) }
        self.context = context
        let opened = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        // Every stored property is set, so a throw from here on runs deinit, which frees.
        guard opened >= 0 else { throw FFmpeg.error(opened, "avio_open", "cannot create \(path)", code: .fileError, path: path) }
        // Every packet goes straight to the kernel: a SIGKILL then loses at most what the muxer
        // itself still holds (the open fragment).
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
    }

    deinit {
        closeFile()
        avformat_free_context(context)
    }

    /// Whether encoders must put their headers in extradata.
    package var needsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// Adds the video track from an open encoder, with the display matrix for `rotation`
    /// (clockwise degrees) and `mirrored`.
    package func addVideo(_ encoder: VideoEncoder, rotation: Double, mirrored: Bool) throws(CaptureError) {
        let stream = try newStream(from: encoder.context)
        videoStream = stream
        orient(stream, rotation: rotation, mirrored: mirrored)
    }

    /// Adds a video track for packets stored as a camera coded them (pass-through), their
    /// timestamps in ``VideoEncoder/timeBase``. Wraps `avcodec_parameters_copy`; the source's
    /// codec tag is cleared, as it names the codec in the source's container (FLV, RTP), not
    /// in this one.
    package func addVideo(copying parameters: CodecParameters, rotation: Double, mirrored: Bool) throws(CaptureError) {
        guard let stream = avformat_new_stream(context, nil) else {
            throw CaptureError(.outOfMemory, "cannot add a stream", operation: "avformat_new_stream", path: path)
        }
        try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy", path: path)
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = VideoEncoder.timeBase
        videoStream = stream
        orient(stream, rotation: rotation, mirrored: mirrored)
    }

    private func orient(_ stream: UnsafeMutablePointer<AVStream>, rotation: Double, mirrored: Bool) {
        if rotation != 0 || mirrored, let matrix = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) {
            matrix.withMemoryRebound(to: Int32.self, capacity: 9) { m in
                // av_display_rotation_set takes clockwise degrees (av_display_rotation_get, and so
                // ffprobe, reports the counter-clockwise angle: -90 for a portrait recording).
                av_display_rotation_set(m, rotation)
                if mirrored { av_display_matrix_flip(m, 1, 0) }
            }
        }
    }

    /// Adds the audio track from an open encoder.
    package func addAudio(_ encoder: AudioEncoder) throws(CaptureError) {
        audioStream = try newStream(from: encoder.context)
    }

    private func newStream(from codec: UnsafeMutablePointer<AVCodecContext>) throws(CaptureError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw CaptureError(.outOfMemory, "cannot add a stream", operation: "avformat_new_stream", path: path)
        }
        try FFmpeg.check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), "avcodec_parameters_from_context", path: path)
        stream.pointee.time_base = codec.pointee.time_base
        return stream
    }

    /// Writes the header. `fragmentInterval` nil writes an ordinary (unfragmented) file.
    package func start(metadata: MovieMetadata, startDate: Date, fragmentInterval: MediaTime?) throws(CaptureError) {
        setTag("title", metadata.title)
        setTag("comment", metadata.comment)
        setTag("location", metadata.location?.iso6709)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        setTag("creation_time", formatter.string(from: metadata.creationDate ?? startDate))

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if let interval = fragmentInterval, interval.isNumeric, case let microseconds = interval.convertScale(1_000_000).value, microseconds > 0 {
            switch container {
            case .mov, .mp4:
                // delay_moov (not empty_moov): the header waits for the first fragment so it can
                // carry the edit lists that hide B-frame delay and AAC priming.
                av_dict_set(&options, "movflags", "frag_keyframe+delay_moov+default_base_moof", 0)
                av_dict_set(&options, "frag_duration", String(microseconds), 0)
            case .mkv:
                av_dict_set(&options, "cluster_time_limit", String(max(1, microseconds / 1000)), 0)
            }
        } else if container == .mp4 {
            av_dict_set(&options, "movflags", "faststart", 0)
        }
        try FFmpeg.check(avformat_write_header(context, &options), "avformat_write_header", code: .fileError, path: path)
        headerWritten = true
        noteCompleteBytes()
        // The muxer may pick its own time bases (QuickTime scales small ones up).
        if let videoStream { videoTimeBase = videoStream.pointee.time_base }
        if let audioStream { audioTimeBase = audioStream.pointee.time_base }
        timings = Array(repeating: [], count: Int(context.pointee.nb_streams))
    }

    private func setTag(_ key: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        av_dict_set(&context.pointee.metadata, key, value, 0)
    }

    /// Writes one encoded packet into its track. Wraps `av_interleaved_write_frame`.
    package func write(_ encoded: EncodedPacket) throws(CaptureError) {
        let video = encoded.track == .video
        guard let stream = video ? videoStream : audioStream else { return }
        let packet = encoded.packet
        packet.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(packet, encoded.timeBase, video ? videoTimeBase : audioTimeBase)
        // An encoder that replaced another mid-track (a live recording changing speed) starts
        // its decode times as if it were the first: they may reach back past the last packet.
        // Its first frames are a keyframe and its successors, so any decode time between the
        // last one and their presentation times is right.
        if let last = timings[Int(stream.pointee.index)].last?.dts, packet.pointee.dts != FFmpeg.noTimestamp,
           packet.pointee.dts <= last, last < packet.pointee.pts {
            packet.pointee.dts = last + 1
        }
        payloadBytes += Int64(packet.pointee.size)
        timings[Int(stream.pointee.index)].append(PacketTiming(pts: packet.pointee.pts, dts: packet.pointee.dts, duration: packet.pointee.duration))
        try FFmpeg.check(av_interleaved_write_frame(context, packet), "av_interleaved_write_frame", "cannot write \(path)", code: .fileError, path: path)
        if let pb = context.pointee.pb, pb.pointee.error < 0 {
            throw FFmpeg.error(pb.pointee.error, "av_interleaved_write_frame", "cannot write \(path)", code: .fileError, path: path)
        }
        noteCompleteBytes()
    }

    private func noteCompleteBytes() {
        if let pb = context.pointee.pb, pb.pointee.error >= 0 { completeBytes = avio_tell(pb) }
    }

    /// Closes the file after a failed write and cuts off what the failure left half written
    /// (the end of a fragment the disk had no room for), so every byte left is part of a whole
    /// fragment and players read the file without an error. Wraps `truncate`.
    package func closeFileDroppingPartialWrite() {
        closeFile()
        guard completeBytes > 0 else { return }
        var info = stat()
        if stat(path, &info) == 0, Int64(info.st_size) > completeBytes { _ = truncate(path, off_t(completeBytes)) }
    }

    /// Writes the trailer (the index of an unfragmented file, the last fragment otherwise) and
    /// closes the file. Wraps `av_write_trailer`.
    package func finish() throws(CaptureError) {
        defer { closeFile() }
        guard headerWritten else { return }
        try FFmpeg.check(av_write_trailer(context), "av_write_trailer", code: .fileError, path: path)
        if let pb = context.pointee.pb, pb.pointee.error < 0 {
            throw FFmpeg.error(pb.pointee.error, "av_interleaved_write_frame", "cannot write \(path)", code: .fileError, path: path)
        }
    }

    /// Closes the file without a trailer (after a write error): what was flushed stays readable.
    package func closeFile() {
        guard !closed else { return }
        closed = true
        avio_closep(&context.pointee.pb)
    }
}
