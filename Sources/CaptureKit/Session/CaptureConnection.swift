import Synchronization

/// The link from an input port to an output inside a session (`AVCaptureConnection`):
/// whether it flows, and how video is oriented and mirrored on the way.
///
/// Orientation and mirroring are recorded, not burned into pixels: data outputs deliver frames
/// as the device sends them; movie and photo outputs store the orientation as metadata.
///
/// ```swift
/// if let video = movieOutput.connection(with: .video), video.isVideoMirroringSupported {
///     video.automaticallyAdjustsVideoMirroring = false
///     video.isVideoMirrored = true                  // a selfie camera, stored as metadata
/// }
/// for channel in movieOutput.connection(with: .audio)?.audioChannels ?? [] {
///     print(channel.averagePowerLevel, channel.peakHoldLevel)   // dBFS
/// }
/// ```
public final class CaptureConnection: Sendable, Hashable {
    /// How a video picture is turned (`AVCaptureVideoOrientation`).
    public enum VideoOrientation: Sendable, Hashable, CaseIterable {
        /// Upright, home button at the bottom: 90° from the sensor's landscape.
        case portrait
        /// Upside-down portrait: 270°.
        case portraitUpsideDown
        /// Landscape, home button on the right: the sensor's own orientation, 0°.
        case landscapeRight
        /// Landscape, home button on the left: 180°.
        case landscapeLeft

        /// The clockwise rotation in degrees this orientation corresponds to.
        public var rotationAngle: Double {
            switch self {
            case .landscapeRight: return 0
            case .portrait: return 90
            case .landscapeLeft: return 180
            case .portraitUpsideDown: return 270
            }
        }

        /// The orientation for a rotation angle of 0, 90, 180 or 270 degrees.
        public init?(rotationAngle: Double) {
            guard let match = Self.allCases.first(where: { $0.rotationAngle == rotationAngle }) else { return nil }
            self = match
        }
    }

    /// Video stabilization modes (`AVCaptureVideoStabilizationMode`). No Linux camera driver
    /// stabilizes, so only `.off` is ever active; see ``isVideoStabilizationSupported``.
    public enum VideoStabilizationMode: Sendable, Hashable {
        /// No stabilization: the only mode a Linux camera has.
        case off
        /// Standard stabilization (never supported on Linux).
        case standard
        /// Stronger stabilization with more latency (never supported on Linux).
        case cinematic
        /// The system's choice (never supported on Linux).
        case auto
    }

    /// The input ports feeding the connection.
    public let inputPorts: [CaptureInput.Port]
    /// The media the connection carries.
    public let mediaType: MediaType
    let input: CaptureInput
    private let state: Mutex<State>
    private let enabled = Atomic<Bool>(true)
    /// Levels of the audio flowing through (audio connections only).
    let levelMeter = AudioLevelMeter()

    private struct State {
        weak var output: CaptureOutput?
        var rotationAngle: Double = 0
        var mirrored = false
        var automaticallyAdjustsMirroring = true
        var preferredStabilization = VideoStabilizationMode.off
        var active = false
    }

    init(port: CaptureInput.Port, output: CaptureOutput) {
        input = port.input
        inputPorts = [port]
        mediaType = port.mediaType
        var initial = State()
        initial.output = output
        state = Mutex(initial)
    }

    /// A connection from one input port to `output`, for ``CaptureSession/addConnection(_:)``
    /// (`AVCaptureConnection(inputPorts:output:)`): the manual way to say which camera an
    /// output takes in a ``CaptureMultiCamSession``. One port: `.invalidArgument` for none or
    /// several (an output takes one camera per connection).
    ///
    /// ```swift
    /// func connect(_ camera: CaptureDeviceInput, to output: CaptureVideoDataOutput, in session: CaptureMultiCamSession) throws {
    ///     guard let port = camera.port(for: .video) else { return }
    ///     try session.addConnection(CaptureConnection(inputPorts: [port], output: output))
    /// }
    /// ```
    public convenience init(inputPorts: [CaptureInput.Port], output: CaptureOutput) throws(CaptureError) {
        guard inputPorts.count == 1, let port = inputPorts.first else {
            throw .invalidArgument("a connection takes exactly one input port, not \(inputPorts.count)")
        }
        self.init(port: port, output: output)
    }

    /// The output at the end of the connection.
    public var output: CaptureOutput? { state.withLock { $0.output } }

    /// Whether media flows through the connection (default true). Takes effect on the next sample.
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// Whether the connection is part of a running session and its device is streaming.
    public var isActive: Bool { state.withLock { $0.active } }

    func setActive(_ active: Bool) { state.withLock { $0.active = active } }

    /// Whether ``videoOrientation`` can be set: true for video connections.
    public var isVideoOrientationSupported: Bool { mediaType == .video }

    /// The orientation recorded for the video, as an angle of 0, 90, 180 or 270 degrees.
    public var videoOrientation: VideoOrientation {
        get { VideoOrientation(rotationAngle: videoRotationAngle) ?? .landscapeRight }
        set { state.withLock { $0.rotationAngle = newValue.rotationAngle } }
    }

    /// The clockwise rotation to apply to the video when shown (`videoRotationAngle`). Setting
    /// it calls ``setVideoRotationAngle(_:)``; a setter cannot throw, so an angle other than 0,
    /// 90, 180 or 270 keeps the old one and is logged through ``CaptureLog``.
    public var videoRotationAngle: Double {
        get { state.withLock { $0.rotationAngle } }
        set {
            do throws(CaptureError) {
                try setVideoRotationAngle(newValue)
            } catch {
                CaptureLog.emit(.warning, "capturekit", "videoRotationAngle was not changed: \(error.message)")
            }
        }
    }

    /// The preview layer at the end of the connection (`videoPreviewLayer`): always nil. Linux
    /// previews (`CaptureVideoPreview`, `CaptureWebPreview`) are outputs of the session, and
    /// connections lead to outputs.
    public var videoPreviewLayer: AnyObject? { nil }

    /// Whether `angle` is a rotation the connection can record (0, 90, 180, 270 on video).
    public func isVideoRotationAngleSupported(_ angle: Double) -> Bool {
        mediaType == .video && VideoOrientation(rotationAngle: angle) != nil
    }

    /// Sets ``videoRotationAngle``; `.invalidArgument` for angles other than 0, 90, 180, 270.
    public func setVideoRotationAngle(_ angle: Double) throws(CaptureError) {
        guard isVideoRotationAngleSupported(angle) else {
            throw .invalidArgument("rotation angle \(angle) is not supported: use 0, 90, 180 or 270 on a video connection")
        }
        state.withLock { $0.rotationAngle = angle }
    }

    /// Whether mirroring can be recorded: true for video connections.
    public var isVideoMirroringSupported: Bool { mediaType == .video }

    /// When true (the default) the connection mirrors front-facing cameras by itself.
    public var automaticallyAdjustsVideoMirroring: Bool {
        get { state.withLock { $0.automaticallyAdjustsMirroring } }
        set { state.withLock { $0.automaticallyAdjustsMirroring = newValue } }
    }

    /// Whether the video is mirrored left to right. Setting it turns
    /// ``automaticallyAdjustsVideoMirroring`` off.
    public var isVideoMirrored: Bool {
        get {
            state.withLock { state in
                state.automaticallyAdjustsMirroring ? frontFacing : state.mirrored
            }
        }
        set {
            state.withLock { state in
                state.automaticallyAdjustsMirroring = false
                state.mirrored = newValue && mediaType == .video
            }
        }
    }

    private var frontFacing: Bool {
        (input as? CaptureDeviceInput)?.device.position == .front && mediaType == .video
    }

    /// Always false: Linux cameras do not stabilize, and CaptureKit does not pretend to.
    public var isVideoStabilizationSupported: Bool { false }

    /// The stabilization asked for; recorded, but ``activeVideoStabilizationMode`` stays `.off`.
    public var preferredVideoStabilizationMode: VideoStabilizationMode {
        get { state.withLock { $0.preferredStabilization } }
        set { state.withLock { $0.preferredStabilization = newValue } }
    }

    /// The stabilization in effect: always `.off`.
    public var activeVideoStabilizationMode: VideoStabilizationMode { .off }

    /// The channels of the audio flowing through, with their levels (`audioChannels`): one per
    /// channel of the device's format once the first buffer passed, empty for video.
    public var audioChannels: [CaptureAudioChannel] { mediaType == .audio ? levelMeter.audioChannels : [] }

    /// The device feeding the connection, when the input is a device input.
    package var device: CaptureDevice? { (input as? CaptureDeviceInput)?.device }

    public static func == (lhs: CaptureConnection, rhs: CaptureConnection) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
