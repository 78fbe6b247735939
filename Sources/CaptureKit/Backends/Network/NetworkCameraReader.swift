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
    }

    private let decoder: FileDecoder
    private let converter: FileFrameConverter
    private let frame: UnsafeMutablePointer<AVFrame>
    private let interrupt: NetworkInterrupt
    private let stall: MediaTime

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
        let actual = try CaptureDevice.Format.decoding(stream, path: name, failure: .unsupportedFormat)
        if let format, (format.width, format.height, format.pixelFormat) != (actual.width, actual.height, actual.pixelFormat) {
            throw CaptureError(.unsupportedFormat, "\(name) now sends \(actual), not \(format)", path: name)
        }
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
    }

    /// The format of what the camera sends.
    let format: CaptureDevice.Format

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
        guard decoded else { return nil }
        let arrival = MonotonicClock.nanoseconds()
        let time = FileDecoder.timestamp(of: frame).flatMap { MediaStreamInfo.time($0, decoder.timeBase)?.nanoseconds }
        return Frame(buffer: try converter.pixelBuffer(from: frame), streamTime: time, arrival: arrival)
    }
}
