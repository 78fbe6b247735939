extension CaptureManager {
    // MARK: Inputs

    /// The camera for `position`, in the seed's fallback order: a camera facing that way
    /// (built-in, then external); for `.back`, otherwise any camera without a known position
    /// (external, built-in, then the virtual camera), as the seed falls back from multi-camera
    /// types to the plain wide-angle camera; for `.unspecified`, the default camera.
    public static func camera(for position: CaptureDevice.Position) -> CaptureDevice? {
        let cameras: [CaptureDevice.DeviceType] = [.builtInWideAngleCamera, .external]
        switch position {
        case .unspecified:
            return CaptureDevice.default(for: .video)
        case .front:
            return CaptureDevice.DiscoverySession(deviceTypes: cameras, mediaType: .video, position: .front).devices.first
        case .back:
            if let facing = CaptureDevice.DiscoverySession(deviceTypes: cameras, mediaType: .video, position: .back).devices.first {
                return facing
            }
            let any = CaptureDevice.DiscoverySession(deviceTypes: [.external, .builtInWideAngleCamera, .virtual],
                                                     mediaType: .video, position: .unspecified).devices
            return any.first { $0.position == .unspecified && $0.isConnected }
        }
    }

    /// Adds the camera for `position` as the video input, replacing the current one
    /// (`configVideoInput:`). Throws `.deviceNotFound` when no camera fits.
    public func configureVideoInput(position: CaptureDevice.Position = .back) throws(CaptureError) {
        do throws(CaptureError) {
            guard let camera = Self.camera(for: position) else {
                throw CaptureError(.deviceNotFound, "no camera facing \(position.rawValue)")
            }
            try replaceInput(with: CaptureDeviceInput(device: camera), video: true)
        } catch {
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
    }

    /// Adds `camera` as the video input, replacing the current one: for a camera chosen by the
    /// application (a unique ID from the command line) rather than by position.
    public func configureVideoInput(device camera: CaptureDevice) throws(CaptureError) {
        do throws(CaptureError) {
            try replaceInput(with: CaptureDeviceInput(device: camera), video: true)
        } catch {
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
    }

    /// Removes the video input (`removeVideoDeviceInput`).
    public func removeVideoDeviceInput() {
        if let input = state.withLock({ state -> CaptureDeviceInput? in defer { state.videoInput = nil }; return state.videoInput }) {
            captureSession.removeInput(input)
        }
    }

    /// Adds the default microphone as the audio input (`configAudioInput:`).
    public func configureAudioInput() throws(CaptureError) {
        do throws(CaptureError) {
            guard let microphone = CaptureDevice.default(for: .audio) else {
                throw CaptureError(.deviceNotFound, "no microphone is present")
            }
            try replaceInput(with: CaptureDeviceInput(device: microphone), video: false)
        } catch {
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
    }

    /// Removes the audio input (`removeAudioDeviceInput`).
    public func removeAudioDeviceInput() {
        if let input = state.withLock({ state -> CaptureDeviceInput? in defer { state.audioInput = nil }; return state.audioInput }) {
            captureSession.removeInput(input)
        }
    }

    private func replaceInput(with input: CaptureDeviceInput, video: Bool) throws(CaptureError) {
        let old = state.withLock { video ? $0.videoInput : $0.audioInput }
        captureSession.beginConfiguration()
        if let old { captureSession.removeInput(old) }
        do throws(CaptureError) {
            try captureSession.addInput(input)
            try captureSession.commitConfiguration()
        } catch {
            // Put the old input back as it was.
            if let old, captureSession.canAddInput(old) { try? captureSession.addInput(old) }
            try? captureSession.commitConfiguration()
            throw error
        }
        state.withLock {
            if video { $0.videoInput = input } else { $0.audioInput = input }
        }
    }

    /// The camera in use.
    public var activeCamera: CaptureDevice? { state.withLock { $0.videoInput?.device } }

    /// How many cameras there are to switch between (`cameraCount`).
    public var cameraCount: Int {
        CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external, .virtual], mediaType: .video,
                                       position: .unspecified).devices.count
    }

    /// Whether ``switchCameras()`` has another camera to go to.
    public var canSwitchCameras: Bool { cameraCount > 1 }

    /// Moves to the next camera (the one facing the other way when there is one), keeping the
    /// session running (`switchCameras`). Throws `.deviceNotFound` with a single camera.
    public func switchCameras() throws(CaptureError) {
        let current = activeCamera
        let all = CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external, .virtual], mediaType: .video,
                                                 position: .unspecified).devices
        let opposite: CaptureDevice.Position = current?.position == .front ? .back : .front
        guard let next = all.first(where: { $0 != current && $0.position == opposite }) ?? all.first(where: { $0 != current }) else {
            let error = CaptureError(.deviceNotFound, "there is no other camera to switch to")
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
        do throws(CaptureError) {
            try replaceInput(with: CaptureDeviceInput(device: next), video: true)
        } catch {
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
    }

    // MARK: Outputs

    /// Adds a photo output for still images (`configStillImageOutput`).
    public func configureStillImageOutput() throws(CaptureError) {
        guard state.withLock({ $0.photoOutput }) == nil else { return }
        let output = CapturePhotoOutput()
        try captureSession.addOutput(output)
        state.withLock { $0.photoOutput = output }
    }

    /// Removes the photo output (`removeStillImageOutput`).
    public func removeStillImageOutput() {
        if let output = state.withLock({ state -> CapturePhotoOutput? in defer { state.photoOutput = nil }; return state.photoOutput }) {
            captureSession.removeOutput(output)
        }
    }

    /// Adds a movie file output (`configMovieFileOutput`).
    public func configureMovieFileOutput() throws(CaptureError) {
        guard state.withLock({ $0.movieOutput }) == nil else { return }
        let output = CaptureMovieFileOutput()
        try captureSession.addOutput(output)
        state.withLock { $0.movieOutput = output }
    }

    /// Removes the movie output (`removeMovieFileOutput`).
    public func removeMovieFileOutput() {
        if let output = state.withLock({ state -> CaptureMovieFileOutput? in defer { state.movieOutput = nil }; return state.movieOutput }) {
            captureSession.removeOutput(output)
        }
    }

    // MARK: Camera controls

    /// Zooms the camera (`setZoomValue:`); `.notSupported`/`.invalidArgument` when it cannot.
    public func setZoomFactor(_ factor: Double) throws(CaptureError) {
        try configureCamera { (camera) throws(CaptureError) in try camera.setVideoZoomFactor(factor) }
    }

    /// Focuses at `point` (`focusAtPoint:`), where the camera supports it.
    public func focus(at point: CaptureDevice.NormalizedPoint) throws(CaptureError) {
        try configureCamera { (camera) throws(CaptureError) in
            try camera.setFocusPointOfInterest(point)
            try camera.setFocusMode(.autoFocus)
        }
    }

    /// Meters exposure at `point` (`exposeAtPoint:`), where the camera supports it.
    public func expose(at point: CaptureDevice.NormalizedPoint) throws(CaptureError) {
        try configureCamera { (camera) throws(CaptureError) in try camera.setExposurePointOfInterest(point) }
    }

    /// Sets the torch (`setTorchMode:`), where the camera has one.
    public func setTorchMode(_ mode: CaptureDevice.TorchMode) throws(CaptureError) {
        try configureCamera { (camera) throws(CaptureError) in try camera.setTorchMode(mode) }
    }

    private func configureCamera(_ change: (CaptureDevice) throws(CaptureError) -> Void) throws(CaptureError) {
        do throws(CaptureError) {
            guard let camera = activeCamera else { throw CaptureError(.invalidState, "configure a video input first") }
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            try change(camera)
        } catch {
            notify { $0.deviceConfigurationFailed(with: error) }
            throw error
        }
    }
}
