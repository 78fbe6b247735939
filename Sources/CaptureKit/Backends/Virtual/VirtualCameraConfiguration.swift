/// How to make a virtual camera with ``CaptureDevice/makeVirtualCamera(_:)``: for tests and
/// demos that need a camera that does not exist.
///
/// ```swift
/// var config = VirtualCameraConfiguration(name: "Bench Camera")
/// config.pacing = .unpaced          // as fast as the consumers allow
/// let camera = try CaptureDevice.makeVirtualCamera(config)
/// ```
public struct VirtualCameraConfiguration: Sendable {
    /// What the camera shows.
    public enum Content: Sendable {
        /// The moving ``TestPattern`` with frame number and time burned in.
        case testPattern
        /// These frames, in a loop (all of one size and format; the camera offers just that).
        /// Frames in a raw Bayer format make a camera that takes raw (DNG) photos.
        case frames([PixelBuffer])
    }

    /// When the device produces samples.
    public typealias Pacing = DevicePacing

    /// The device name.
    public var name: String
    /// The unique ID; derived from the name when nil ("Virtual Camera" → `virtual-camera`).
    public var uniqueID: String?
    /// Where the camera claims to face.
    public var position: CaptureDevice.Position = .unspecified
    /// What kind of camera it claims to be: `.virtual` unless set. Set `.builtInWideAngleCamera`
    /// (as the built-in virtual cameras are) or an iPhone type such as `.builtInDualCamera`
    /// to be found by the lookups iOS code makes; the camera stays ``CaptureDevice/isVirtual``
    /// whatever it claims. Audio types (`.microphone`, `.systemAudio`) and `.file` are refused.
    public var deviceType: CaptureDevice.DeviceType = .virtual
    /// Frame sizes offered (for `.testPattern`).
    public var sizes: [Size] = [Size(width: 640, height: 480), Size(width: 1280, height: 720), Size(width: 1920, height: 1080)]
    /// Pixel formats offered (for `.testPattern`; YUV formats only).
    public var pixelFormats: [PixelFormat] = [.yuyv422, .nv12]
    /// Frame rates offered, in frames per second.
    public var frameRates: [Int32] = [15, 30, 60]
    /// The picture.
    public var content: Content = .testPattern
    /// Real time or unpaced.
    public var pacing: Pacing = .realTime
    /// The bus the camera claims to be on (nil: none): set a USB bus on several virtual
    /// cameras to see what ``CaptureMultiCamSession/hardwareCost`` says of real webcams sharing
    /// one port. The frames still come from memory; only the cost check reads it.
    public var bus: CaptureDevice.Bus?

    /// A configuration with the built-in "Virtual Camera"'s formats and pacing (but of type
    /// `.virtual` at `.unspecified`).
    public init(name: String) {
        self.name = name
    }

    /// A frame size.
    public typealias Size = VideoDimensions
}

/// How to make a virtual microphone with ``CaptureDevice/makeVirtualMicrophone(_:)``.
public struct VirtualMicrophoneConfiguration: Sendable {
    /// The device name.
    public var name: String
    /// The unique ID; derived from the name when nil ("Virtual Camera" → `virtual-camera`).
    public var uniqueID: String?
    /// The tone's frequency in hertz.
    public var frequency: Double = 440
    /// The tone's level in dBFS (peak).
    public var level: Double = -12
    /// The sample rate of every format.
    public var sampleRate: Int = 48_000
    /// Frames per delivered buffer (480 = 10 ms at 48 kHz).
    public var framesPerBuffer: Int = 480
    /// Real time or unpaced.
    public var pacing: DevicePacing = .realTime

    /// A configuration with the defaults of the built-in "Virtual Microphone".
    public init(name: String) {
        self.name = name
    }
}
