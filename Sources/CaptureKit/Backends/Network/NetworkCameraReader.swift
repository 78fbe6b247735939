internal import CFFmpeg
import Foundation

/// One connection to a network camera: the demuxer, the decoder of its main video stream, and
/// the conversion to the camera's format. Every blocking call is bounded by `interrupt`: a
/// connection attempt and each frame by the stall timeout. Used by the stream's thread only.
final class NetworkCameraReader: @unchecked Sendable {
    // Unchecked Sendable: FFmpeg state confined to the network camera's stream thread.
    /// A decoded frame.
    struct Frame {
        var buffer: PixelBuffer
        /// The stream's timestamp in nanoseconds, nil when the frame has none.
        var streamTime: Int64?
        /// When it was decoded, on the monotonic clock.
        var arrival: Int64
        /// The packets read since the frame before, as the camera coded them (see
        /// ``CompressedFrame``): what a recording stores without re-encoding.
        var packets: [CompressedFrame]
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

    /// Connects to `address` and opens the decoder of its main video stream; `format` is the
    /// camera's format when known (a reconnection: the stream must still match it), nil on the
    /// first connection.
    init(address: String, shownAs name: String, options: NetworkCameraOptions, format: CaptureDevice.Format?,
         interrupt: NetworkInterrupt) throws(CaptureError) {
        self.interrupt = interrupt
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
        if packetCodec != nil {
            decoder.packetObserver = { [unowned self] packet in keep(packet) }
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
            kept.append(KeptPacket(storage: storage, byteCount: size, pts: pts == FFmpeg.noTimestamp ? nil : pts,
                                   dts: dts == FFmpeg.noTimestamp ? nil : dts, isKeyFrame: packet.pointee.flags & AV_PKT_FLAG_KEY != 0))
        } catch {
            keepFailure = error
        }
    }

    /// The packets kept since the last frame, dated against the frame at stream time `ticks`.
    private func takePackets(frameAt ticks: Int64?) -> [CompressedFrame] {
        guard let codec = packetCodec else { return [] }
        defer { kept.removeAll(keepingCapacity: true) }
        let base = decoder.timeBase
        func offset(_ value: Int64?) -> MediaTime {
            guard let value, let ticks, let time = MediaStreamInfo.time(value - ticks, base) else { return .zero }
            return time
        }
        return kept.map { packet in
            CompressedFrame(codec: codec, storage: packet.storage, byteCount: packet.byteCount, isKeyFrame: packet.isKeyFrame,
                            presentationOffset: offset(packet.pts), decodeOffset: offset(packet.dts ?? packet.pts))
        }
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeing)
    }

    /// The next frame; nil when the camera ended its stream. Throws `.connectionLost` when the
    /// connection breaks or no frame came within the stall timeout.
    func next() throws(CaptureError) -> Frame? {
        interrupt.arm(stall)
        defer { interrupt.arm(nil) }
        let decoded: Bool
        do {
            decoded = try decoder.decode(into: frame)
        } catch {
            let why = interrupt.timedOut ? "no frame within \(stall.seconds) s" : error.message
            throw CaptureError(.connectionLost, "\(decoder.input.path) stopped sending: \(why)", path: decoder.input.path)
        }
        // A read cut short by the deadline ends the stream as a stall, not as its end (the
        // frames the decoder would drain are as old as the stall).
        if interrupt.timedOut {
            throw CaptureError(.connectionLost, "\(decoder.input.path) stopped sending: no frame within \(stall.seconds) s", path: decoder.input.path)
        }
        if let failure = keepFailure {
            keepFailure = nil
            throw failure
        }
        guard decoded else { return nil }
        let arrival = MonotonicClock.nanoseconds()
        let ticks = FileDecoder.timestamp(of: frame)
        let time = ticks.flatMap { MediaStreamInfo.time($0, decoder.timeBase)?.nanoseconds }
        return Frame(buffer: try converter.pixelBuffer(from: frame), streamTime: time, arrival: arrival, packets: takePackets(frameAt: ticks))
    }
}
