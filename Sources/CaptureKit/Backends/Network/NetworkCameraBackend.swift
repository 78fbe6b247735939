import Foundation
import Synchronization

/// A camera on the network, read through libavformat: RTSP, RTMP, SRT, HLS, HTTP (multipart
/// MJPEG), RTP or MPEG-TS over UDP. Its one format is what the stream decodes to, found by
/// connecting once when the device is made. The URL keeps its secrets for FFmpeg only; the
/// device's identity and every message show it redacted.
final class NetworkCameraBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    /// The URL as given, secrets included: for FFmpeg only.
    private let address: String
    /// The URL as it may be shown.
    let shownURL: String
    let options: NetworkCameraOptions
    private let connected = Atomic<Bool>(true)
    /// The stream parameters of the last connection.
    private let coded: Mutex<CodecParameters?>
    /// Arrival (monotonic) minus camera time of the stream's camera clock (``LiveTimeline``),
    /// nil until a camera has said what its clock reads.
    private let clockOffset = Mutex<Int64?>(nil)
    /// Frames decoded since the device was made (not those of the probe): stays put while no
    /// output wants pixels.
    let decodedFrames = Atomic<Int>(0)
    /// The connection this camera and its microphone share.
    let feed = NetworkCameraFeed()
    /// The formats of the camera's sound as the first connection found it; empty without.
    let soundFormats: [CaptureDevice.Format]
    /// The device of the camera's sound while anyone holds it: one object, as devices keep
    /// their settings (it holds the camera, so the camera holds it weakly).
    private let microphone = Mutex(MicrophoneReference())

    private struct MicrophoneReference {
        weak var device: CaptureDevice?
    }

    /// The schemes FFmpeg reads live streams from.
    static let schemes: Set<String> = ["rtsp", "rtsps", "rtmp", "rtmps", "srt", "http", "https", "udp", "rtp", "tcp"]

    /// Connects to `url` once to learn what it sends. Throws `.invalidArgument` for what is not
    /// a URL of a live stream, and the connection's errors (`.connectionFailed`,
    /// `.notAuthorized`, `.unsupportedFormat`).
    init(url: String, options: NetworkCameraOptions) throws(CaptureError) {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        let shown = URLSecrets.register(trimmed)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              Self.schemes.contains(scheme) else {
            throw .invalidArgument("\(shown) is not the URL of a network camera (\(Self.schemes.sorted().joined(separator: ", ")))")
        }
        guard components.host?.isEmpty == false || scheme == "srt" || scheme == "udp" || scheme == "rtp" else {
            throw .invalidArgument("\(shown) names no host")
        }
        guard options.stallTimeout > .zero, options.connectTimeout > .zero, options.reconnectDelay > .zero,
              options.maximumReconnectDelay >= options.reconnectDelay else {
            throw .invalidArgument("a network camera's timeouts and reconnection delays must be positive, the maximum delay at least the first")
        }
        address = trimmed
        shownURL = shown
        self.options = options
        let probe = try NetworkCameraReader(address: trimmed, shownAs: shown, options: options, format: nil, interrupt: NetworkInterrupt())
        formats = [probe.format]
        soundFormats = probe.soundFormats
        coded = Mutex(probe.codedVideo)
        var place = components
        place.user = nil
        place.password = nil
        place.query = nil
        let name = options.name ?? "\(place.host ?? scheme)\(components.path.isEmpty ? "" : components.path)"
        descriptor = DeviceDescriptor(uniqueID: "network:\(URLSecrets.redact(place.string ?? shown))", localizedName: CaptureLog.redacted(name),
                                      modelID: scheme.uppercased(), manufacturer: "", deviceType: .network,
                                      position: .unspecified, mediaType: .video)
    }

    var isConnected: Bool { connected.load(ordering: .acquiring) }

    /// The microphone of the camera's sound (``NetworkMicrophoneBackend``), the same device
    /// while anyone holds it; nil when the camera sends none.
    func microphoneDevice() -> CaptureDevice? {
        microphone.withLock { reference in
            if let device = reference.device { return device }
            guard let backend = NetworkMicrophoneBackend(camera: self) else { return nil }
            let device = CaptureDevice(backend: backend)
            reference.device = device
            return device
        }
    }

    var codedVideo: CodecParameters? { coded.withLock { $0 } }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        return try feed.startVideo(sink, start: connection)
    }

    /// Connects, and reads on a thread of its own into `sinks` until stopped: the stream the
    /// camera and its microphone share (``NetworkCameraFeed``).
    func connection(_ sinks: NetworkCameraSinks) throws(CaptureError) -> NetworkCameraStream {
        guard let format = formats.first else { throw .internalError("a network camera without a format") }
        let address = address, shown = shownURL, options = options
        let connect: NetworkCameraStream.Connect = { [weak self] (interrupt) throws(CaptureError) -> NetworkCameraReader in
            let reader = try NetworkCameraReader(address: address, shownAs: shown, options: options, format: format, interrupt: interrupt,
                                                 countDecoded: { [weak self] count in self?.decodedFrames.add(count, ordering: .relaxed) })
            self?.noteParameters(of: reader)
            return reader
        }
        let interrupt = NetworkInterrupt()
        let first = try connect(interrupt)
        return NetworkCameraStream(first: first, interrupt: interrupt, frameDuration: format.minFrameDuration, options: options, sinks: sinks,
                                   connect: connect,
                                   onGone: { [weak self] in self?.connected.store(false, ordering: .releasing) },
                                   onBack: { [weak self] in self?.connected.store(true, ordering: .releasing) },
                                   onClock: { [weak self] offset in self?.clockOffset.withLock { $0 = offset } })
    }

    /// How far the camera's clock is ahead of this machine's wall clock, as its RTCP sender
    /// reports tell (less the fastest frame's trip here); nil before any.
    var cameraClockLead: Duration? {
        guard let offset = clockOffset.withLock({ $0 }) else { return nil }
        return .nanoseconds(-(offset + SessionWallClock.current().unixNanosecondsAtSessionZero))
    }

    /// Keeps the parameters of a new connection. A camera that came back with other parameter
    /// sets (a restarted encoder) is told of: a recording that stores its packets keeps the
    /// first connection's in its header, which players use unless the stream repeats its own.
    private func noteParameters(of reader: NetworkCameraReader) {
        coded.withLock { current in
            if let old = current, let new = reader.codedVideo, !old.matches(new) {
                CaptureLog.emit(.info, "capturekit", "\(shownURL) came back with other \(new.codecName) parameter sets")
            }
            current = reader.codedVideo
        }
    }
}
