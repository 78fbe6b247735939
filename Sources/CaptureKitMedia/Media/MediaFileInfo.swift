import CaptureKitCore
internal import CFFmpeg
import Foundation

/// What a media file holds, as `ffprobe` reports it: the container, its duration and tags, and
/// every stream with its codec, size, pixel format, frame rate, frame count, rotation, sample
/// rate and channels.
///
/// ```swift
/// let info = try MediaFileInfo(contentsOf: URL(fileURLWithPath: "clip.mkv"))
/// if let video = info.videoStream {
///     print(video.codec, video.width ?? 0, video.height ?? 0, video.frameCount ?? 0, video.rotation)
/// }
/// ```
public struct MediaFileInfo: Sendable, Hashable {
    /// The file's path.
    public var path: String
    /// FFmpeg's name of the container format (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
    public var container: String
    /// FFmpeg's long name of the container format (`QuickTime / MOV`).
    public var containerDescription: String
    /// Where the file's timeline starts (often zero; negative with audio encoder priming).
    public var startTime: MediaTime?
    /// How long the file lasts, as the container says (or FFmpeg estimates).
    public var duration: MediaTime?
    /// Bits per second over the whole file, when known.
    public var bitRate: Int?
    /// The file's size in bytes.
    public var byteCount: Int64?
    /// Every stream, in file order.
    public var streams: [MediaStreamInfo]
    /// The container's tags (`title`, `creation_time`, `encoder`, …).
    public var metadata: [String: String]

    /// The main video stream (what `ffmpeg` would pick; never cover art), if any.
    public var videoStream: MediaStreamInfo? {
        mainVideoIndex.flatMap { index in streams.first { $0.index == index } }
    }
    /// The main audio stream, if any.
    public var audioStream: MediaStreamInfo? {
        mainAudioIndex.flatMap { index in streams.first { $0.index == index } }
    }

    private var mainVideoIndex: Int?
    private var mainAudioIndex: Int?

    /// Probes `url`: wraps `avformat_open_input`, `avformat_find_stream_info`, `av_dict_get`
    /// and, with `countingFrames`, `av_read_frame` to count the packets of every stream whose
    /// container does not say how many frames it has (Matroska, MPEG-TS) — which reads the
    /// whole file, without decoding.
    ///
    /// HEIF and AVIF photos, which FFmpeg before 6.1 cannot open, are read with libheif: the
    /// container is `heif`, with one video stream (`hevc` or `av1`, one frame) of the upright
    /// picture's size.
    ///
    /// Throws `.fileError` for a missing or unreadable file, `.unsupportedFile` for one FFmpeg
    /// cannot read as media, and `.corruptFile` when counting hits damaged data.
    public init(contentsOf url: URL, countingFrames: Bool = true) throws(CaptureError) {
        let fileURL = url.isFileURL ? url.standardizedFileURL : url
        let input: MediaInput
        do throws(CaptureError) {
            input = try MediaInput(url: fileURL)
        } catch {
            guard error.code == .unsupportedFile, HEIFImage.isHEIF(fileURL) else { throw error }
            self = MediaFileInfo(heif: try HEIFImage(url: fileURL))
            return
        }
        try self.init(input, countingFrames: countingFrames)
    }

    /// What a live stream (`rtsp://`, `rtmp://`, `srt://`, `http://`… — what
    /// ``CaptureDevice/networkCamera(url:options:)`` reads) sends: its container and streams as
    /// FFmpeg sees them after connecting, with no duration and no frame counts. `path` is the
    /// URL with its secrets redacted. Throws `.invalidArgument` for a file path,
    /// `.connectionFailed` for a server that cannot be reached or does not answer within
    /// `timeout`, `.notAuthorized` for refused credentials and `.unsupportedFormat` for what
    /// FFmpeg cannot read.
    public init(liveStreamAt url: String, rtspTransport: RTSPTransport = .tcp, timeout: Duration = .seconds(5)) throws(CaptureError) {
        guard url.contains("://"), !url.lowercased().hasPrefix("file:") else {
            throw .invalidArgument("\(CaptureLog.redacted(url)) is not the URL of a live stream")
        }
        let shown = URLSecrets.register(url)
        let input = try MediaInput(network: url, shownAs: shown, format: nil, options: MediaInput.liveOptions(for: url, rtspTransport: rtspTransport),
                                   interrupt: NetworkInterrupt(), timeout: MediaTime(timeout))
        try self.init(input, countingFrames: false)
    }

    private init(_ input: MediaInput, countingFrames: Bool) throws(CaptureError) {
        let context = input.context.pointee
        path = input.path
        container = context.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        containerDescription = context.iformat.flatMap { $0.pointee.long_name.map { String(cString: $0) } } ?? container
        let microseconds = AVRational(num: 1, den: 1_000_000)
        startTime = input.startTimeMicroseconds.flatMap { MediaStreamInfo.time($0, microseconds) }
        duration = context.duration == FFmpeg.noTimestamp || context.duration <= 0 ? nil : MediaStreamInfo.time(context.duration, microseconds)
        bitRate = context.bit_rate > 0 ? Int(context.bit_rate) : nil
        var status = stat()
        byteCount = stat(input.path, &status) == 0 ? Int64(status.st_size) : nil
        metadata = Self.tags(context.metadata)
        streams = input.streams.map(MediaStreamInfo.init)
        let video = input.bestStream(of: AVMEDIA_TYPE_VIDEO)
        mainVideoIndex = video.flatMap { $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 ? Int($0.pointee.index) : nil }
        mainAudioIndex = input.bestStream(of: AVMEDIA_TYPE_AUDIO).map { Int($0.pointee.index) }
        if countingFrames, streams.contains(where: { $0.frameCount == nil && ($0.kind == .video || $0.kind == .audio) }) {
            try countPackets(input)
        }
    }

    /// A HEIF still as libheif reads it.
    private init(heif: HEIFImage) {
        path = heif.path
        container = "heif"
        containerDescription = "HEIF image (libheif)"
        var status = stat()
        byteCount = stat(heif.path, &status) == 0 ? Int64(status.st_size) : nil
        metadata = [:]
        streams = [MediaStreamInfo(stillImage: heif.codec, width: heif.width, height: heif.height)]
        mainVideoIndex = 0
    }

    /// Reads every packet to count frames and measure durations the container does not state.
    private mutating func countPackets(_ input: MediaInput) throws(CaptureError) {
        guard let packet = av_packet_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a packet", operation: "av_packet_alloc", path: path)
        }
        defer {
            var freeing: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&freeing)
        }
        let list = input.streams
        var counts = [Int](repeating: 0, count: list.count)
        var ends = [Int64?](repeating: nil, count: list.count)
        while true {
            let read = av_read_frame(input.context, packet)
            if read == FFmpeg.eof { break }
            guard read >= 0 else {
                var error = FFmpeg.error(read, "av_read_frame", code: .corruptFile, path: path)
                error.message = "cannot read the file: \(FFmpeg.message(read))"
                throw error
            }
            let index = Int(packet.pointee.stream_index)
            if index >= 0, index < counts.count {
                counts[index] += 1
                let pts = packet.pointee.pts != FFmpeg.noTimestamp ? packet.pointee.pts : packet.pointee.dts
                if pts != FFmpeg.noTimestamp {
                    let end = pts + max(0, packet.pointee.duration)
                    ends[index] = max(ends[index] ?? end, end)
                }
            }
            av_packet_unref(packet)
        }
        for position in streams.indices {
            let index = streams[position].index
            guard index < counts.count else { continue }
            if streams[position].frameCount == nil { streams[position].frameCount = counts[index] }
            if streams[position].duration == nil, let end = ends[index] {
                let stream = list[index].pointee
                let start = stream.start_time == FFmpeg.noTimestamp ? 0 : stream.start_time
                streams[position].duration = MediaStreamInfo.time(end - start, stream.time_base)
            }
        }
    }

    /// An FFmpeg dictionary as a Swift one: wraps `av_dict_get` with an empty key and
    /// `AV_DICT_IGNORE_SUFFIX`, FFmpeg's way to iterate.
    package static func tags(_ dictionary: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let key = next.pointee.key, let value = next.pointee.value {
                result[String(cString: key)] = String(cString: value)
            }
            entry = next
        }
        return result
    }
}
