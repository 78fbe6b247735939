import Glibc

extension CaptureDevice {
    /// Finds devices by type, media and position (`AVCaptureDevice.DiscoverySession`).
    ///
    /// ```swift
    /// let cameras = CaptureDevice.DiscoverySession(deviceTypes: [.external, .builtInWideAngleCamera, .virtual],
    ///                                              mediaType: .video, position: .unspecified).devices
    /// ```
    public struct DiscoverySession: Sendable {
        /// The device types asked for.
        public let deviceTypes: [DeviceType]
        /// The media asked for, or nil for any.
        public let mediaType: MediaType?
        /// The position asked for; `.unspecified` matches every position.
        public let position: Position

        /// A discovery for devices of `deviceTypes` carrying `mediaType` at `position`.
        public init(deviceTypes: [DeviceType], mediaType: MediaType?, position: Position) {
            self.deviceTypes = deviceTypes
            self.mediaType = mediaType
            self.position = position
        }

        /// The matching devices present now: hardware first, in the order of `deviceTypes`.
        /// The built-in virtual devices (the back and front cameras, the microphone) are found
        /// only while the machine has no hardware they stand in for — while ``default(for:)``
        /// would pick them — so that on a machine with a real camera a lookup finds that camera
        /// or nothing, never a made-up one. Types no Linux camera has (`.builtInDualCamera`
        /// and the other iPhone types) find nothing, unless a test made a virtual camera of
        /// that type.
        public var devices: [CaptureDevice] { devices(among: DeviceRegistry.shared.devices()) }

        /// The matching devices among `present` (a registry's devices, in its order).
        func devices(among present: [CaptureDevice]) -> [CaptureDevice] {
            let all = present.filter { device in
                (mediaType.map(device.hasMediaType) ?? true)
                    && (position == .unspecified || device.position == position)
                    && (!device.isStandIn || !present.contains { !$0.isVirtual && $0.isDefaultCandidate(for: device.backend.descriptor.mediaType) })
            }
            return deviceTypes.flatMap { type in all.filter { $0.deviceType == type } }
        }
    }

    /// Every device present now.
    public static var allDevices: [CaptureDevice] { DeviceRegistry.shared.devices() }

    /// The device to use for `mediaType` when the user has not chosen one: the first connected
    /// hardware device (for audio, the sound server's default source when a server runs), or the
    /// built-in virtual device when there is no hardware. Never a file-backed device (those play
    /// one particular file) nor a monitor of what the machine plays (`.systemAudio`).
    public static func `default`(for mediaType: MediaType) -> CaptureDevice? {
        DeviceRegistry.shared.devices().first { $0.isDefaultCandidate(for: mediaType) }
    }

    /// Whether ``default(for:)`` may pick this device for `mediaType`.
    private func isDefaultCandidate(for mediaType: MediaType) -> Bool {
        hasMediaType(mediaType) && isConnected && deviceType != .file && deviceType != .systemAudio
    }
    /// The first device of `deviceType` for `mediaType` at `position` (any position for `.unspecified`).
    public static func `default`(_ deviceType: DeviceType, for mediaType: MediaType?, position: Position) -> CaptureDevice? {
        DiscoverySession(deviceTypes: [deviceType], mediaType: mediaType, position: position).devices.first
    }

    /// The device with `uniqueID`, if present (`AVCaptureDevice(uniqueID:)`).
    public static func device(uniqueID: String) -> CaptureDevice? {
        DeviceRegistry.shared.devices().first { $0.uniqueID == uniqueID }
    }

    /// Whether this user may capture `mediaType`. On the direct camera route that is a matter
    /// of file permissions: `.denied` when camera nodes exist but none can be opened (join the
    /// `video` group), otherwise `.authorized` (virtual devices are always usable). On the
    /// portal route (``cameraRoute``) it is the Camera portal's answer: `.notDetermined` until
    /// ``requestAccess(for:)`` asked (or a connection showed that the desktop kept an earlier
    /// "yes"), then `.authorized` or `.denied`.
    public static func authorizationStatus(for mediaType: MediaType) -> AuthorizationStatus {
        guard mediaType == .video else { return .authorized }
        if cameraRoute == .portal { return PipeWireDeviceProvider.shared.portalAuthorization }
        let nodes: [String] = (0..<64).map { (index: Int) -> String in "/dev/video\(index)" }.filter { access($0, F_OK) == 0 }
        if nodes.isEmpty || nodes.contains(where: { access($0, R_OK | W_OK) == 0 }) { return .authorized }
        return .denied
    }

    /// Resolves to whether `mediaType` may be captured. On the portal route it asks the Camera
    /// portal, which shows the desktop's prompt the first time; false as well when no portal
    /// answers (``requestCameraAccess()`` says why). On the direct route Linux has no prompt.
    public static func requestAccess(for mediaType: MediaType) async -> Bool {
        guard mediaType == .video, cameraRoute == .portal else { return authorizationStatus(for: mediaType) == .authorized }
        do {
            try await requestCameraAccess()
            return true
        } catch {
            return false
        }
    }

    /// Asks for camera access and throws when there is none: on the portal route the Camera
    /// portal's `AccessCamera` (the desktop's prompt the first time, its stored answer after
    /// that), then the cameras it shows are discovered. Throws `.notAuthorized` when access is
    /// refused, `.connectionFailed` when no portal answers on the session bus, `.notSupported`
    /// when the portal has no Camera interface. On the direct route: `.notAuthorized` when
    /// ``authorizationStatus(for:)`` is `.denied`.
    public static func requestCameraAccess() async throws(CaptureError) {
        guard cameraRoute == .portal else {
            guard authorizationStatus(for: .video) == .authorized else {
                throw CaptureError(.notAuthorized, "this user may not open cameras: add it to the 'video' group")
            }
            return
        }
        // The portal waits for a person: off the cooperative pool.
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, CaptureError>, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(CaptureError) -> Bool in try PipeWireDeviceProvider.shared.requestPortalAccess() })
            }
        }
        guard try result.get() else {
            throw CaptureError(.notAuthorized, "camera access through the Camera portal was refused (the desktop's privacy settings can change it)")
        }
        // The portal's cameras join the registry (and connection events) now.
        DeviceConnectionHub.shared.rescan()
    }
}
