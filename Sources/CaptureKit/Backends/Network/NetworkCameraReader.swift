internal import CFFmpeg
import Foundation

/// One connection to a network camera: the demuxer, the decoder of its main video stream, and
/// the conversion to the camera's format; while its sound is wanted, the decoder of its main
/// audio stream, read from the same connection. Every blocking call is bounded by `interrupt`:
/// a connection attempt and each frame by the stall timeout. Used by the stream's thread only.
final class NetworkCameraReader: @unchecked Sendable {
    // Unchecked Sendable: FFmpeg state confined to the network camera's stream thread.
    /// A frame: decoded, or (while no output wants pixels) one packet of the camera's with a
    /// blank picture standing in.
    struct Frame {
        var buffer: PixelBuffer
        /// Whether `buffer` is the blank stand-in of a frame left undecoded.
        var undecoded = false
        /// The stream's timestamp in nanoseconds, nil when the frame has none.
        var streamTime: Int64?
        /// When the camera's clock says it took the frame, in Unix nanoseconds: known once an
        /// RTSP (or RTP) camera's first RTCP sender report has said what its RTP timestamps
        /// stand for in NTP time.
        var cameraTime: Int64? = nil
        /// When it was read, on the monotonic clock.
        var arrival: Int64
        /// The packets read since the frame before, as the camera coded them (see
        /// ``CompressedFrame``): what a recording stores without re-encoding.
        var packets: [CompressedFrame]
    }

    /// Sound decoded while reading frames, in ``wantedSound``'s format.
    struct Sound {
        var buffer: AudioBuffer
        /// The stream's time of its last sample's end, nanoseconds; nil when the stream did not
        /// say.
        var streamEnd: Int64?
        /// The camera's wall-clock time of that end (see ``Frame/cameraTime``).
        var cameraEnd: Int64?
        /// When its packet was read, on the monotonic clock.
        var arrival: Int64
    }

    /// A packet kept until the decoder hands out the frame it travels with.
    private struct KeptPacket {
        var storage: MediaStorage
        var byteCount: Int
        var pts: Int64?
        var dts: Int64?
        var isKeyFrame: Bool
    }

    private let decoder: FileDecoder
    private let converter: FileFrameConverter
    private let frame: UnsafeMutablePointer<AVFrame>
    private let interrupt: NetworkInterrupt
    private let stall: MediaTime
    private let packetCodec: CompressedFrame.Codec?
    private var kept: [KeptPacket] = []
    private var keepFailure: CaptureError?
    /// The packets since the last keyframe: what the decoder needs to catch up after skipping.
    private var group: [KeptPacket] = []
    private var groupBytes = 0
    /// Whether the decoder has had every packet read so far.
    private var inStep = true
    /// Whether the stream reorders frames (B-frames): its packets are then always decoded, as
    /// a frame's time is only known once decoded.
    private var reorders = false
    private var lastPacketTime: Int64?
    /// The picture of frames left undecoded, made once.
    private var blank: PixelBuffer?
    /// Told how many frames the decoder made, each time it made some: what shows it idle
    /// while it may be.
    private let countDecoded: @Sendable (Int) -> Void
    /// The camera's main audio stream, when it sends one FFmpeg decodes.
    private let audioStream: UnsafeMutablePointer<AVStream>?
    private var audioDecoder: PacketAudioDecoder?
    private var heard: [Sound] = []
    /// Packets of sound that could not be decoded or converted since the last ``takeSound()``.
    private var unheard = 0

    /// The group of pictures kept for catching up is dropped beyond these (a camera that sends
    /// keyframes rarely or never): decoding then resumes with damage until the next keyframe.
    private static let groupLimit = (packets: 600, bytes: 64 << 20)

    /// Connects to `address` and opens the decoder of its main video stream; `format` is the
    /// camera's format when known (a reconnection: the stream must still match it), nil on the
    /// first connection.
    init(address: String, shownAs name: String, options: NetworkCameraOptions, format: CaptureDevice.Format?,
         interrupt: NetworkInterrupt, countDecoded: @escaping @Sendable (Int) -> Void = { _ in }) throws(CaptureError) {
        self.interrupt = interrupt
        self.countDecoded = countDecoded
        stall = MediaTime(options.stallTimeout)
        let input = try MediaInput(network: address, shownAs: name, format: options.format,
                                   options: MediaInput.liveOptions(for: address, rtspTransport: options.rtspTransport),
                                   interrupt: interrupt, timeout: MediaTime(options.connectTimeout))
        guard let stream = input.bestStream(of: AVMEDIA_TYPE_VIDEO) else {
            throw CaptureError(.unsupportedFormat, "\(name) sends no video", path: name)
        }
        let actual = try CaptureDevice.Format.decoding(stream, path: name, failure: .unsupportedFormat, coded: true)
        if let format, (format.width, format.height, format.pixelFormat, format.encoding) != (actual.width, actual.height, actual.pixelFormat, actual.encoding) {
            throw CaptureError(.unsupportedFormat, "\(name) now sends \(actual), not \(format)", path: name)
        }
        let parameters = try stream.pointee.codecpar.map { (parameters) throws(CaptureError) in try CodecParameters(copying: parameters) }
        switch parameters?.videoCodec {
        case .h264: packetCodec = .h264
        case .hevc: packetCodec = .hevc
        case .mjpeg: packetCodec = .jpeg
        case nil: packetCodec = nil
        }
        codedVideo = packetCodec == .jpeg ? nil : parameters
        decoder = try FileDecoder(input: input, type: AVMEDIA_TYPE_VIDEO, live: true)
        decoder.skipsDamagedPackets = true
        guard let frame = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: name)
        }
        self.frame = frame
        guard let pixelFormat = (format ?? actual).pixelFormat else {
            throw CaptureError(.internalError, "a network camera's format has no pixel layout", path: name)
        }
        converter = FileFrameConverter(pixelFormat: pixelFormat, width: actual.width, height: actual.height, path: name)
        self.format = actual
        let sound = input.bestStream(of: AVMEDIA_TYPE_AUDIO)
        soundFormats = sound.flatMap { try? CaptureDevice.Format.decodingSound($0, path: name, failure: .unsupportedFormat) } ?? []
        audioStream = soundFormats.isEmpty ? nil : sound
        if packetCodec != nil {
            decoder.packetObserver = { [unowned self] packet in keep(packet) }
        }
        if let audioStream {
            decoder.alsoRead(audioStream) { [unowned self] packet in hear(packet) }
        }
    }

    /// The formats of the camera's sound (``CaptureDevice/Format/decodingSound(_:path:failure:)``),
    /// empty when it sends none CaptureKit can decode.
    let soundFormats: [CaptureDevice.Format]

    /// The format to decode the camera's sound to, nil while nobody listens (its packets are
    /// then dropped undecoded).
    var wantedSound: AudioFormat? {
        didSet { if wantedSound == nil { heard.removeAll() } }
    }

    /// The sound decoded since the last call, oldest first, and how many of its packets were
    /// lost to errors meanwhile.
    func takeSound() -> (sound: [Sound], lostPackets: Int) {
        defer {
            heard.removeAll(keepingCapacity: true)
            unheard = 0
        }
        return (heard, unheard)
    }

    /// Decodes a packet of the camera's sound, when it is wanted.
    private func hear(_ packet: UnsafeMutablePointer<AVPacket>) {
        guard let wanted = wantedSound, let audioStream else { return }
        let arrival = MonotonicClock.nanoseconds()
        do throws(CaptureError) {
            if audioDecoder?.format != wanted {
                audioDecoder = try PacketAudioDecoder(stream: audioStream, format: wanted, path: decoder.input.path)
            }
            guard let audioDecoder else { return }
            let base = audioDecoder.timeBase
            for decoded in try audioDecoder.decode(packet) {
                let duration = MediaTime(value: Int64(decoded.buffer.frameCount), timescale: Int32(wanted.sampleRate)).nanoseconds ?? 0
                let end = decoded.ticks.flatMap { MediaStreamInfo.time($0, base)?.nanoseconds }.map { $0 + duration }
                heard.append(Sound(buffer: decoded.buffer, streamEnd: end, cameraEnd: cameraTime(end), arrival: arrival))
            }
        } catch {
            unheard += 1
        }
    }

    /// The format of what the camera sends.
    let format: CaptureDevice.Format
    /// The camera's H.264/HEVC stream parameters, nil for other codecs (JPEGs are whole
    /// pictures and need none).
    let codedVideo: CodecParameters?

    /// Copies a packet the demuxer read, to go with the next frame out of the decoder.
    private func keep(_ packet: UnsafeMutablePointer<AVPacket>) {
        let size = Int(packet.pointee.size)
        guard size > 0, let data = packet.pointee.data else { return }
        do {
            let storage = try MediaStorage.allocate(byteCount: size)
            storage.bytes.copyMemory(from: data, byteCount: size)
            let pts = packet.pointee.pts, dts = packet.pointee.dts
            let kept = KeptPacket(storage: storage, byteCount: size, pts: pts == FFmpeg.noTimestamp ? nil : pts,
                                  dts: dts == FFmpeg.noTimestamp ? nil : dts, isKeyFrame: packet.pointee.flags & AV_PKT_FLAG_KEY != 0)
            self.kept.append(kept)
            noteOrder(of: kept)
            if kept.isKeyFrame || group.count >= Self.groupLimit.packets || groupBytes + size > Self.groupLimit.bytes {
                group.removeAll(keepingCapacity: true)
                groupBytes = 0
            }
            group.append(kept)
            groupBytes += size
        } catch {
            keepFailure = error
        }
    }

    /// Notes a stream that reorders frames: a packet decoded before it is shown, or shown
    /// before one read earlier.
    private func noteOrder(of packet: KeptPacket) {
        if let dts = packet.dts, let pts = packet.pts, dts != pts { reorders = true }
        if let pts = packet.pts {
            if let last = lastPacketTime, pts < last { reorders = true }
            lastPacketTime = pts
        }
    }

    /// The packets kept since the last frame, dated against the frame at stream time `ticks`.
    private func takePackets(frameAt ticks: Int64?, from packets: [KeptPacket]) -> [CompressedFrame] {
        guard let codec = packetCodec else { return [] }
        let base = decoder.timeBase
        func offset(_ value: Int64?) -> MediaTime {
            guard let value, let ticks, let time = MediaStreamInfo.time(value - ticks, base) else { return .zero }
            return time
        }
        return packets.map { packet in
            CompressedFrame(codec: codec, storage: packet.storage, byteCount: packet.byteCount, isKeyFrame: packet.isKeyFrame,
                            presentationOffset: offset(packet.pts), decodeOffset: offset(packet.dts ?? packet.pts))
        }
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeing)
    }

    /// The next frame; nil when the camera ended its stream. Throws `.connectionLost` when the
    /// connection breaks or no frame came within the stall timeout. Unless `wantsPixels`, an
    /// H.264/HEVC stream that does not reorder frames is not decoded: each packet comes as a
    /// frame of its own with a blank picture, and the decoder catches up on the group of
    /// pictures when pixels are wanted again.
    func next(wantsPixels: Bool) throws(CaptureError) -> Frame? {
        interrupt.arm(stall)
        defer { interrupt.arm(nil) }
        if !wantsPixels, codedVideo != nil, !reorders {
            return try nextPacket()
        }
        if !inStep {
            countDecoded(decoder.catchUp(on: takePackets(frameAt: nil, from: group), using: frame))
            kept.removeAll(keepingCapacity: true)
            inStep = true
        }
        let decoded: Bool
        do {
            decoded = try decoder.decode(into: frame)
        } catch {
            throw lost(error)
        }
        try checkRead()
        guard decoded else { return nil }
        countDecoded(1)
        let arrival = MonotonicClock.nanoseconds()
        let ticks = FileDecoder.timestamp(of: frame)
        defer { kept.removeAll(keepingCapacity: true) }
        return Frame(buffer: try converter.pixelBuffer(from: frame), streamTime: time(ticks), cameraTime: cameraTime(time(ticks)),
                     arrival: arrival, packets: takePackets(frameAt: ticks, from: kept))
    }

    /// The next packet as a frame of its own, undecoded.
    private func nextPacket() throws(CaptureError) -> Frame? {
        inStep = false
        while kept.isEmpty {
            let read: Bool
            do {
                read = try decoder.skipPacket()
            } catch {
                throw lost(error)
            }
            try checkRead()
            guard read else { return nil }
        }
        let arrival = MonotonicClock.nanoseconds()
        let ticks = kept[0].pts
        let packets = takePackets(frameAt: ticks, from: kept)
        kept.removeAll(keepingCapacity: true)
        return Frame(buffer: try blankPicture(), undecoded: true, streamTime: time(ticks), cameraTime: cameraTime(time(ticks)),
                     arrival: arrival, packets: packets)
    }

    /// Fails a read cut short by the deadline as a stall, not as the stream's end (the frames
    /// the decoder would drain are as old as the stall), and a packet that could not be kept.
    private func checkRead() throws(CaptureError) {
        if interrupt.timedOut {
            throw CaptureError(.connectionLost, "\(decoder.input.path) stopped sending: no frame within \(stall.seconds) s", path: decoder.input.path)
        }
        if let failure = keepFailure {
            keepFailure = nil
            throw failure
        }
    }

    private func lost(_ error: CaptureError) -> CaptureError {
        let why = interrupt.timedOut ? "no frame within \(stall.seconds) s" : error.message
        return CaptureError(.connectionLost, "\(decoder.input.path) stopped sending: \(why)", path: decoder.input.path)
    }

    /// Stream ticks as nanoseconds.
    private func time(_ ticks: Int64?) -> Int64? {
        ticks.flatMap { MediaStreamInfo.time($0, decoder.timeBase)?.nanoseconds }
    }

    /// The camera's wall-clock time of a stream time: libavformat's RTSP demuxer sets
    /// `start_time_realtime` (the NTP time of timestamp zero) from the first sender report.
    private func cameraTime(_ streamTime: Int64?) -> Int64? {
        let start = decoder.input.context.pointee.start_time_realtime
        guard let streamTime, start != FFmpeg.noTimestamp, start > 0, start < Int64.max / 1_000 else { return nil }
        let (sum, overflow) = (start * 1_000).addingReportingOverflow(streamTime)
        return overflow ? nil : sum
    }

    private func blankPicture() throws(CaptureError) -> PixelBuffer {
        if let blank { return blank }
        guard let pixelFormat = format.pixelFormat else {
            throw CaptureError(.internalError, "a network camera's format has no pixel layout", path: decoder.input.path)
        }
        let picture = try PixelBuffer(width: format.width, height: format.height, pixelFormat: pixelFormat) { _, bytes, _ in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
        }
        blank = picture
        return picture
    }
}
