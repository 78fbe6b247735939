import CaptureKit
import Foundation

// AVCam's CaptureService, ported with the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md: an
// actor that owns the session, so that no camera work happens on the main actor.

/// Owns the capture session, its inputs and outputs.
actor CaptureService {
    /// What the service is doing: idle, taking a photo, or recording.
    private(set) var captureActivity: CaptureActivity = .idle
    /// What the current camera and mode can do.
    private(set) var captureCapabilities = CaptureCapabilities.unknown
    /// Whether something took the camera away.
    private(set) var isInterrupted = false
    /// The runtime errors the session reported, newest last.
    private(set) var runtimeErrors: [CaptureError] = []

    /// The session; a preview would attach to it.
    nonisolated let captureSession = CaptureSession()

    private let photoCapture = PhotoCapture()
    private let movieCapture = MovieCapture()
    private var outputServices: [any OutputService] { [photoCapture, movieCapture] }

    private var activeVideoInput: CaptureDeviceInput?
    private(set) var captureMode = CaptureMode.photo
    private let deviceLookup = DeviceLookup()
    private var rotationCoordinator: CaptureDevice.RotationCoordinator!
    private var isSetUp = false
    private var observers: [Task<Void, Never>] = []

    // MARK: - Authorization

    /// Whether the app may use the camera and the microphone.
    var isAuthorized: Bool {
        get async {
            let status = CaptureDevice.authorizationStatus(for: .video)
            var isAuthorized = status == .authorized
            if status == .notDetermined {
                isAuthorized = await CaptureDevice.requestAccess(for: .video)
            }
            return isAuthorized
        }
    }

    // MARK: - Capture session life cycle

    /// Sets the session up for `mode` the first time, then starts it.
    func start(with mode: CaptureMode) async throws {
        captureMode = mode
        guard await isAuthorized, !captureSession.isRunning else { return }
        try setUpSession()
        try captureSession.startRunning()
    }

    /// Stops the session and the observers.
    func stop() {
        for observer in observers { observer.cancel() }
        observers = []
        try? captureSession.stopRunning()
    }

    private func setUpSession() throws {
        guard !isSetUp else { return }

        observeNotifications()

        do {
            let defaultCamera = try deviceLookup.defaultCamera
            let defaultMic = try deviceLookup.defaultMic

            activeVideoInput = try addInput(for: defaultCamera)
            try addInput(for: defaultMic)

            captureSession.sessionPreset = captureMode == .photo ? .photo : .high
            try addOutput(photoCapture.output)
            if captureMode == .video {
                try addOutput(movieCapture.output)
            }

            createRotationCoordinator(for: defaultCamera)
            observeSubjectAreaChanges(of: defaultCamera)
            updateCaptureCapabilities()

            isSetUp = true
        } catch {
            throw CameraError.setupFailed
        }
    }

    @discardableResult
    private func addInput(for device: CaptureDevice) throws -> CaptureDeviceInput {
        let input = try CaptureDeviceInput(device: device)
        if captureSession.canAddInput(input) {
            try captureSession.addInput(input)
        } else {
            throw CameraError.addInputFailed
        }
        return input
    }

    private func addOutput(_ output: CaptureOutput) throws {
        if captureSession.canAddOutput(output) {
            try captureSession.addOutput(output)
        } else {
            throw CameraError.addOutputFailed
        }
    }

    private var currentDevice: CaptureDevice {
        guard let device = activeVideoInput?.device else {
            fatalError("No device found for current video input.")
        }
        return device
    }

    // MARK: - Capture mode selection

    /// Photo mode has the photo output and the photo preset; video mode adds the movie output.
    func setCaptureMode(_ captureMode: CaptureMode) throws {
        self.captureMode = captureMode

        try captureSession.configure {
            switch captureMode {
            case .photo:
                captureSession.sessionPreset = .photo
                captureSession.removeOutput(movieCapture.output)
            case .video:
                captureSession.sessionPreset = .high
                try addOutput(movieCapture.output)
            }
        }

        updateCaptureCapabilities()
    }

    // MARK: - Device selection

    /// Switches to the next camera in the lookup's list.
    func selectNextVideoDevice() {
        let videoDevices = deviceLookup.cameras

        let selectedIndex = videoDevices.firstIndex(of: currentDevice) ?? 0
        var nextIndex = selectedIndex + 1
        if nextIndex == videoDevices.endIndex {
            nextIndex = 0
        }

        let nextDevice = videoDevices[nextIndex]
        changeCaptureDevice(to: nextDevice)

        CaptureDevice.userPreferredCamera = nextDevice
    }

    /// The camera in use.
    var activeCamera: CaptureDevice? { activeVideoInput?.device }

    private func changeCaptureDevice(to device: CaptureDevice) {
        guard let currentInput = activeVideoInput else { fatalError() }

        captureSession.beginConfiguration()
        defer { try? captureSession.commitConfiguration() }

        captureSession.removeInput(currentInput)
        do {
            activeVideoInput = try addInput(for: device)
            createRotationCoordinator(for: device)
            observeSubjectAreaChanges(of: device)
            updateCaptureCapabilities()
        } catch {
            try? captureSession.addInput(currentInput)
        }
    }

    // MARK: - Rotation handling

    private func createRotationCoordinator(for device: CaptureDevice) {
        rotationCoordinator = CaptureDevice.RotationCoordinator(device: device, previewLayer: nil)

        updateCaptureRotation(rotationCoordinator.videoRotationAngleForHorizonLevelCapture)

        let updates = rotationCoordinator.videoRotationAngleForHorizonLevelCaptureUpdates
        observers.append(Task { [weak self] in
            for await angle in updates {
                await self?.updateCaptureRotation(angle)
            }
        })
    }

    private func updateCaptureRotation(_ angle: CGFloat) {
        for output in outputServices {
            output.setVideoRotationAngle(angle)
        }
    }

    // MARK: - Automatic focus and exposure

    /// Focuses and exposes at `point` (0...1 in both axes) if the camera can.
    func focusAndExpose(at point: CGPoint) {
        let devicePoint = CGPoint(x: point.y, y: 1 - point.x)
        do {
            try focusAndExpose(at: devicePoint, isUserInitiated: true)
        } catch {
            print("Unable to perform focus and exposure operation. \(error)")
        }
    }

    private func observeSubjectAreaChanges(of device: CaptureDevice) {
        let subjectAreaChanges = NotificationCenter.default.notifications(named: CaptureDevice.subjectAreaDidChangeNotification, object: device)
        observers.append(Task { [weak self] in
            for await _ in subjectAreaChanges {
                try? await self?.focusAndExpose(at: CGPoint(x: 0.5, y: 0.5), isUserInitiated: false)
            }
        })
    }

    private func focusAndExpose(at devicePoint: CGPoint, isUserInitiated: Bool) throws {
        let device = currentDevice

        try device.lockForConfiguration()

        let focusMode = isUserInitiated ? CaptureDevice.FocusMode.autoFocus : .continuousAutoFocus
        if device.isFocusPointOfInterestSupported && device.isFocusModeSupported(focusMode) {
            device.focusPointOfInterest = devicePoint
            device.focusMode = focusMode
        }

        let exposureMode = isUserInitiated ? CaptureDevice.ExposureMode.autoExpose : .continuousAutoExposure
        if device.isExposurePointOfInterestSupported && device.isExposureModeSupported(exposureMode) {
            device.exposurePointOfInterest = devicePoint
            device.exposureMode = exposureMode
        }
        device.isSubjectAreaChangeMonitoringEnabled = isUserInitiated

        device.unlockForConfiguration()
    }

    // MARK: - Photo capture

    /// Takes a photo with `features`.
    func capturePhoto(with features: PhotoFeatures) async throws -> Photo {
        try await photoCapture.capturePhoto(with: features)
    }

    // MARK: - Movie capture

    /// Starts recording a movie.
    func startRecording() throws {
        try movieCapture.startRecording()
    }

    /// How much of the movie is recorded, for the UI's timer.
    var recordedDuration: MediaTime { movieCapture.output.recordedDuration }

    /// Stops the recording and returns the movie.
    func stopRecording() async throws -> Movie {
        try await movieCapture.stopRecording()
    }

    // MARK: - Internal state management

    private func updateCaptureCapabilities() {
        for service in outputServices { service.updateConfiguration(for: currentDevice) }
        switch captureMode {
        case .photo:
            captureCapabilities = photoCapture.capabilities
        case .video:
            captureCapabilities = movieCapture.capabilities
        }
    }

    private func observeNotifications() {
        let interruptions = NotificationCenter.default.notifications(named: CaptureSession.wasInterruptedNotification)
        let interruptionEnds = NotificationCenter.default.notifications(named: CaptureSession.interruptionEndedNotification)
        let runtimeErrors = NotificationCenter.default.notifications(named: CaptureSession.runtimeErrorNotification)
        observers.append(Task { [weak self] in
            for await reason in interruptions.compactMap({ $0.userInfo?[CaptureSessionInterruptionReasonKey] as? CaptureSession.InterruptionReason }) {
                await self?.setInterrupted(true, because: reason)
            }
        })
        observers.append(Task { [weak self] in
            for await _ in interruptionEnds {
                await self?.setInterrupted(false, because: nil)
            }
        })
        observers.append(Task { [weak self] in
            for await error in runtimeErrors.compactMap({ $0.userInfo?[CaptureSessionErrorKey] as? CaptureError }) {
                await self?.recordRuntimeError(error)
            }
        })
    }

    private func setInterrupted(_ interrupted: Bool, because reason: CaptureSession.InterruptionReason?) {
        isInterrupted = interrupted
    }

    private func recordRuntimeError(_ error: CaptureError) {
        runtimeErrors.append(error)
    }
}
