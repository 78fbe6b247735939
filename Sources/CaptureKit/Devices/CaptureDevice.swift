import Synchronization

/// A camera or microphone (`AVCaptureDevice`).
///
/// Find devices with ``DiscoverySession`` or ``default(for:)``; change their settings between
/// ``lockForConfiguration()`` and ``unlockForConfiguration()``:
///
/// ```swift
/// guard let camera = CaptureDevice.default(for: .video) else { return }
/// try camera.lockForConfiguration()
/// defer { camera.unlockForConfiguration() }
/// if let hd = camera.formats.first(where: { $0.width == 1280 }) {
///     try camera.setActiveFormat(hd)
///     try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 30))
/// }
/// ```
public final class CaptureDevice: Sendable, Hashable, CustomStringConvertible {
    let backend: any DeviceBackend

    struct Settings: Sendable {
        var activeFormat: Format
        var minFrameDuration: MediaTime
        var maxFrameDuration: MediaTime
        var lockCount = 0
        var owner: ObjectIdentifier?
        var observers: [ObjectIdentifier: @Sendable () -> Void] = [:]
        var substitution: FormatSubstitution?
        var stallTimeout: Duration?
        /// The active format is a photo's format switch (``StreamConfiguration/servesStills``).
        var servesStills = false
    }

    private let settings: Mutex<Settings>
    /// What was set through AVFoundation's settable properties (focus, exposure, points).
    let requested = Mutex(RequestedDeviceSettings())

    init(backend: any DeviceBackend) {
        self.backend = backend
        let format = backend.formats.first ?? Format(audioFormat: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16))
        let duration = Self.defaultFrameDuration(for: format)
        settings = Mutex(Settings(activeFormat: format, minFrameDuration: duration, maxFrameDuration: duration))
    }

    // MARK: Identity

    /// An identifier stable across runs and re-plugs.
    public var uniqueID: String { backend.descriptor.uniqueID }
    /// The name to show people.
    public var localizedName: String { backend.descriptor.localizedName }
    /// The model (USB vendor:product for USB devices).
    public var modelID: String { backend.descriptor.modelID }
    /// Who made it.
    public var manufacturer: String { backend.descriptor.manufacturer }
    /// What kind of device it is.
    public var deviceType: DeviceType { backend.descriptor.deviceType }
    /// Where a camera faces.
    public var position: Position { backend.descriptor.position }
    /// Whether CaptureKit made the device up (a virtual camera or microphone, or a file-backed
    /// device) rather than it being hardware — whatever ``deviceType`` it claims: the built-in
    /// virtual cameras are `.builtInWideAngleCamera`s.
    public var isVirtual: Bool { backend.descriptor.origin != .hardware }
    /// Whether this is one of the built-in virtual devices, which discovery sessions find only
    /// while the machine has no hardware of their media.
    var isStandIn: Bool { backend.descriptor.origin == .standIn }
    /// Whether the device is present now.
    public var isConnected: Bool { backend.isConnected }
    /// Whether a capture session is streaming from the device now.
    public var isInUse: Bool { settings.withLock { $0.owner != nil } }

    /// Whether the device captures `mediaType`.
    public func hasMediaType(_ mediaType: MediaType) -> Bool { backend.descriptor.mediaType == mediaType }

    public var description: String { "\(localizedName) [\(uniqueID)]" }

    public static func == (lhs: CaptureDevice, rhs: CaptureDevice) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Formats

    /// Every format the device supports.
    public var formats: [Format] { backend.formats }

    /// The format the device captures in. Session presets other than `.inputPriority` set it
    /// for you; set it yourself with ``setActiveFormat(_:)``, which says why when it cannot.
    /// Setting the property, as AVFoundation code does, calls it; a setter cannot throw, so a
    /// refusal keeps the format and is logged through ``CaptureLog``.
    public var activeFormat: Format {
        get { settings.withLock { $0.activeFormat } }
        set { applyingProperty("activeFormat") { () throws(CaptureError) in try setActiveFormat(newValue) } }
    }

    /// The shortest time between frames: 1 / the frame rate the device runs at.
    public var activeVideoMinFrameDuration: MediaTime { settings.withLock { $0.minFrameDuration } }

    /// The longest time between frames the device may take (for low light). Equal to the
    /// minimum on devices with a fixed rate.
    public var activeVideoMaxFrameDuration: MediaTime { settings.withLock { $0.maxFrameDuration } }

    /// Sets ``activeFormat``. Requires ``lockForConfiguration()``. Resets the frame durations to
    /// the format's default (30 fps when supported) and, when a session uses the device, switches
    /// that session's preset to `.inputPriority`, as AVFoundation does.
    public func setActiveFormat(_ format: Format) throws(CaptureError) {
        guard formats.contains(format) else {
            throw CaptureError(.unsupportedFormat, "\(localizedName) has no format \(format)", deviceID: uniqueID)
        }
        try requireConfigurationLock()
        let (applied, substitution) = try applyToHardware(StreamConfiguration(format: format, frameDuration: Self.defaultFrameDuration(for: format)))
        try changeSettings { settings in
            settings.activeFormat = applied.format
            settings.servesStills = false
            settings.minFrameDuration = applied.frameDuration
            settings.maxFrameDuration = settings.minFrameDuration
            settings.substitution = substitution ?? settings.substitution
        }
    }

    /// How long the camera may deliver no frame before a session treats it as lost; nil (the
    /// default) waits for ever. A camera that stalls without an error — a USB camera whose
    /// firmware hangs, a virtual camera whose producer quit — is then let go as an unplugged one
    /// is: the session is interrupted (`.videoDeviceNotAvailable`), the node is closed (so its
    /// driver can be reloaded), and capture resumes, as after a re-plug, once the camera opens
    /// again in its format and delivers a frame. Pick a time well above the longest frame
    /// interval the camera may take (low light, triggered capture). Cameras read through V4L2
    /// honour it; other devices report their losses themselves.
    public var stallTimeout: Duration? { settings.withLock { $0.stallTimeout } }

    /// Sets ``stallTimeout``. Requires ``lockForConfiguration()``; a running session applies
    /// it by restarting the camera's stream. Throws `.invalidArgument` for a device without
    /// video or a timeout that is not positive.
    public func setStallTimeout(_ timeout: Duration?) throws(CaptureError) {
        guard hasMediaType(.video) else {
            throw CaptureError(.invalidArgument, "\(localizedName) is not a camera: only cameras stall", deviceID: uniqueID)
        }
        if let timeout, timeout <= .zero {
            throw CaptureError(.invalidArgument, "a stall timeout must be positive, not \(timeout)", deviceID: uniqueID)
        }
        try changeSettings { $0.stallTimeout = timeout }
    }

    /// What the driver last chose instead of the format or frame rate asked for, if it ever did.
    public var lastFormatSubstitution: FormatSubstitution? { settings.withLock { $0.substitution } }

    /// Throws `.deviceNotLockedForConfiguration` outside ``lockForConfiguration()``: every
    /// setter, formats and controls alike, checks it first.
    func requireConfigurationLock() throws(CaptureError) {
        guard isLockedForConfiguration else {
            throw CaptureError(.deviceNotLockedForConfiguration,
                               "call lockForConfiguration() on \(localizedName) before changing its settings", deviceID: uniqueID)
        }
    }

    /// Sets the frame rate: the device delivers a frame every `duration`. `.invalid` restores
    /// the active format's default. Requires ``lockForConfiguration()``.
    public func setActiveVideoMinFrameDuration(_ duration: MediaTime) throws(CaptureError) {
        try setFrameDuration(duration, isMinimum: true)
    }

    /// Sets the longest allowed frame duration. `.invalid` restores the default. Requires
    /// ``lockForConfiguration()``.
    public func setActiveVideoMaxFrameDuration(_ duration: MediaTime) throws(CaptureError) {
        try setFrameDuration(duration, isMinimum: false)
    }

    private func setFrameDuration(_ duration: MediaTime, isMinimum: Bool) throws(CaptureError) {
        let format = activeFormat
        guard format.mediaType == .video else {
            throw CaptureError(.unsupportedFormat, "\(localizedName) is not a video device", deviceID: uniqueID)
        }
        var value = duration.isValid ? duration : Self.defaultFrameDuration(for: format)
        guard format.supportsFrameDuration(value) else {
            throw CaptureError(.unsupportedFormat,
                               "\(localizedName) cannot run \(format.width)x\(format.height) at \(1 / value.seconds) fps; supported: \(format.videoSupportedFrameRateRanges.map(\.description).joined(separator: ", "))",
                               deviceID: uniqueID)
        }
        var substitution: FormatSubstitution?
        if isMinimum {
            try requireConfigurationLock()
            let applied: StreamConfiguration
            (applied, substitution) = try applyToHardware(StreamConfiguration(format: format, frameDuration: value))
            value = applied.frameDuration
        }
        try changeSettings { settings in
            settings.substitution = substitution ?? settings.substitution
            if isMinimum {
                settings.minFrameDuration = value
                settings.maxFrameDuration = MediaTime.maximum(settings.maxFrameDuration, value)
            } else {
                settings.maxFrameDuration = value
                settings.minFrameDuration = MediaTime.minimum(settings.minFrameDuration, value)
            }
        }
    }

    private func changeSettings(_ change: (inout Settings) -> Void) throws(CaptureError) {
        let observers = try settings.withLock { (settings) throws(CaptureError) -> [@Sendable () -> Void] in
            guard settings.lockCount > 0 else {
                throw CaptureError(.deviceNotLockedForConfiguration,
                                   "call lockForConfiguration() on \(localizedName) before changing its settings", deviceID: uniqueID)
            }
            change(&settings)
            return Array(settings.observers.values)
        }
        for observer in observers { observer() }
    }

    /// The frame duration a format starts at: 30 fps when it supports that, else its fastest.
    static func defaultFrameDuration(for format: Format) -> MediaTime {
        guard format.mediaType == .video else { return .invalid }
        return format.nearestFrameDuration(to: MediaTime(value: 1, timescale: 30))
    }

    // MARK: Configuration lock

    /// Takes the right to change the device's settings (`lockForConfiguration()`). Nests: every
    /// call needs its ``unlockForConfiguration()``. Throws `.deviceDisconnected` for a device
    /// that has gone away.
    public func lockForConfiguration() throws(CaptureError) {
        guard isConnected else {
            throw CaptureError(.deviceDisconnected, "\(localizedName) is not connected", deviceID: uniqueID)
        }
        settings.withLock { $0.lockCount += 1 }
    }

    /// Gives back the right taken by ``lockForConfiguration()``.
    public func unlockForConfiguration() {
        settings.withLock { $0.lockCount = max(0, $0.lockCount - 1) }
    }

    /// Whether settings may be changed now.
    public var isLockedForConfiguration: Bool { settings.withLock { $0.lockCount > 0 } }

    // MARK: Session side

    /// Applies a format chosen by a session preset; needs no lock. Observers are not told, the
    /// session applying it is the only one interested.
    func applyPresetFormat(_ format: Format, frameDuration: MediaTime, servesStills: Bool = false) {
        settings.withLock { settings in
            settings.activeFormat = format
            settings.servesStills = servesStills
            settings.minFrameDuration = frameDuration
            settings.maxFrameDuration = frameDuration
        }
    }

    /// The stream configuration the current settings ask for.
    var streamConfiguration: StreamConfiguration {
        settings.withLock {
            StreamConfiguration(format: $0.activeFormat, frameDuration: $0.minFrameDuration, stallTimeout: $0.stallTimeout, servesStills: $0.servesStills)
        }
    }

    /// Marks the device as streaming for `owner`; `.deviceBusy` if another owner has it.
    func claim(for owner: AnyObject) throws(CaptureError) {
        let id = ObjectIdentifier(owner)
        try settings.withLock { (settings) throws(CaptureError) in
            if let current = settings.owner, current != id {
                throw CaptureError(.deviceBusy, "\(localizedName) is in use by another capture session", deviceID: uniqueID)
            }
            settings.owner = id
        }
    }

    /// Ends a claim made by `owner`.
    func release(for owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        settings.withLock { if $0.owner == id { $0.owner = nil } }
    }

    /// Calls `body` whenever someone changes the device's settings; keyed by `owner`.
    func observeSettings(for owner: AnyObject, _ body: (@Sendable () -> Void)?) {
        let id = ObjectIdentifier(owner)
        settings.withLock { $0.observers[id] = body }
    }
}
