import CaptureKit
import Foundation

// The article's CQCaptureManager (../shared/seed/), ported method for method from its Swift
// AVFoundation form with nothing but the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md:
// `AV` dropped, `try` where CaptureKit throws, `CaptureImage` for UIImage, `MediaLibrary` for
// ALAssetsLibrary. The only addition is `init(library:)`, so that tests keep their files apart
// (the article makes an `ALAssetsLibrary()` where it writes; `MediaLibrary.standard()` is that).

/// Takes photos and movies with a capture session and writes them to the media library.
///
/// `@unchecked Sendable`: as in the article, the public methods are called from the main
/// thread and the delegate is read only in blocks on the main queue; the one property the
/// capture queues touch, `movieFileOutputURL`, is behind `lock`.
final class CQCaptureManager: CaptureFileOutputRecordingDelegate, @unchecked Sendable {
    weak var delegate: (any CQCaptureManagerDelegate)?
    let captureSession = CaptureSession()
    /// What the app knows of how the device is held (UIDevice's orientation on iOS).
    var deviceOrientation: CaptureConnection.VideoOrientation = .portrait

    private let library: MediaLibrary
    private let captureVideoQueue = DispatchQueue(label: "CQCaptureManager.captureVideoQueue")
    private var isConfigSessionPreset = false
    private var videoDeviceInput: CaptureDeviceInput?
    private var audioDeviceInput: CaptureDeviceInput?
    private var stillImageOutput: CaptureStillImageOutput?
    private var movieFileOutput: CaptureMovieFileOutput?
    private let lock = NSLock()
    private var _movieFileOutputURL: URL?
    private var movieFileOutputURL: URL? {
        get { lock.withLock { _movieFileOutputURL } }
        set { lock.withLock { _movieFileOutputURL = newValue } }
    }

    init(library: MediaLibrary) {
        self.library = library
    }

    // MARK: 1. The session

    func configSessionPreset(_ sessionPreset: CaptureSession.Preset) {
        captureSession.beginConfiguration()
        if captureSession.canSetSessionPreset(sessionPreset) {
            captureSession.sessionPreset = sessionPreset
        } else {
            captureSession.sessionPreset = .high
        }
        try? captureSession.commitConfiguration()
        isConfigSessionPreset = true
    }

    // MARK: 2. Video input

    func configVideoInput() throws -> Bool {
        guard let videoDevice = getCameraWithPosition(.back) else { return false }
        let videoInput = try CaptureDeviceInput(device: videoDevice)
        if captureSession.canAddInput(videoInput) {
            try captureSession.configure {
                try captureSession.addInput(videoInput)
            }
            self.videoDeviceInput = videoInput
            return true
        } else {
            return false
        }
    }

    func removeVideoDeviceInput() {
        if let videoDeviceInput { captureSession.removeInput(videoDeviceInput) }
        videoDeviceInput = nil
    }

    func getCameraWithPosition(_ position: CaptureDevice.Position) -> CaptureDevice? {
        var deviceTypes: [CaptureDevice.DeviceType]
        if position == .back {
            deviceTypes = [.builtInDualCamera, .builtInDualWideCamera, .builtInTripleCamera]
        } else {
            deviceTypes = [.builtInWideAngleCamera]
        }
        let deviceSession = CaptureDevice.DiscoverySession(deviceTypes: deviceTypes, mediaType: .video, position: position)
        if let device = deviceSession.devices.first { return device }
        if position == .back {
            // Not a multi-camera phone.
            deviceTypes = [.builtInWideAngleCamera]
            let deviceSession = CaptureDevice.DiscoverySession(deviceTypes: deviceTypes, mediaType: .video, position: position)
            if let device = deviceSession.devices.first { return device }
        }
        return nil
    }

    /// The camera that feeds the session.
    func getActiveCamera() -> CaptureDevice? {
        videoDeviceInput?.device
    }

    // MARK: 3. Audio input

    func configAudioInput() throws -> Bool {
        guard let audioDevice = CaptureDevice.default(for: .audio) else { return false }
        let audioDeviceInput = try CaptureDeviceInput(device: audioDevice)
        self.audioDeviceInput = audioDeviceInput
        if captureSession.canAddInput(audioDeviceInput) {
            try captureSession.configure {
                try captureSession.addInput(audioDeviceInput)
            }
            return true
        } else {
            return false
        }
    }

    func removeAudioDeviceInput() {
        if let audioDeviceInput { captureSession.removeInput(audioDeviceInput) }
    }

    // MARK: 5. Outputs

    func configStillImageOutput() {
        let stillImageOutput = CaptureStillImageOutput()
        stillImageOutput.outputSettings = CaptureStillImageOutput.OutputSettings(codec: .jpeg)
        self.stillImageOutput = stillImageOutput
        try? captureSession.configure {
            if captureSession.canAddOutput(stillImageOutput) {
                try captureSession.addOutput(stillImageOutput)
            }
        }
    }

    func removeStillImageOutput() {
        if let stillImageOutput { captureSession.removeOutput(stillImageOutput) }
    }

    func configMovieFileOutput() {
        let movieFileOutput = CaptureMovieFileOutput()
        self.movieFileOutput = movieFileOutput
        try? captureSession.configure {
            if captureSession.canAddOutput(movieFileOutput) {
                try captureSession.addOutput(movieFileOutput)
            }
        }
    }

    func removeMovieFileOutput() {
        if let movieFileOutput { captureSession.removeOutput(movieFileOutput) }
    }

    // MARK: 6. Starting and stopping

    func startSessionAsync() {
        if !captureSession.isRunning {
            captureVideoQueue.async {
                try? self.captureSession.startRunning()
            }
        }
    }

    func stopSessionAsync() {
        if captureSession.isRunning {
            captureVideoQueue.async {
                try? self.captureSession.stopRunning()
            }
        }
    }

    func startSessionSync() {
        if !captureSession.isRunning {
            try? captureSession.startRunning()
        }
    }

    func getCurrentVideoOrientation() -> CaptureConnection.VideoOrientation {
        deviceOrientation
    }

    // MARK: 7. A still

    func captureStillImage() {
        if !isConfigSessionPreset { configSessionPreset(.medium) }
        if videoDeviceInput == nil {
            let configResult = (try? configVideoInput()) ?? false
            if !configResult { return }
        }
        if stillImageOutput == nil { configStillImageOutput() }
        startSessionSync()
        guard let stillImageOutput, let connection = stillImageOutput.connection(with: .video) else { return }
        // Even if the app is portrait only, a photo taken in landscape should come out upright.
        if connection.isVideoOrientationSupported {
            connection.videoOrientation = getCurrentVideoOrientation()
        }
        stillImageOutput.captureStillImageAsynchronously(from: connection) { imageDataSampleBuffer, error in
            if let imageDataSampleBuffer {
                DispatchQueue.main.async {
                    self.delegate?.mediaCaptureImageFileSuccess()
                }
                guard let imageData = CaptureStillImageOutput.jpegStillImageNSDataRepresentation(imageDataSampleBuffer),
                      let image = try? CaptureImage(data: imageData) else { return }
                self.writeImageToAssetsLibrary(image)
            } else {
                DispatchQueue.main.async {
                    self.delegate?.mediaCaptureImageFailedWithError(error)
                }
                NSLog("NULL sampleBuffer: %@", error?.localizedDescription ?? "")
            }
        }
    }

    private func writeImageToAssetsLibrary(_ image: CaptureImage) {
        library.saveImage(image.pixelBuffer) { result in
            switch result {
            case .success:
                DispatchQueue.main.async {
                    self.delegate?.assetLibraryWriteImageSuccessWithImage(image)
                }
            case .failure(let error):
                DispatchQueue.main.async {
                    self.delegate?.assetLibraryWriteImageFailedWithError(error)
                }
            }
        }
    }

    // MARK: 8. A movie

    func startRecordingMovieFile() {
        if !isConfigSessionPreset { configSessionPreset(.medium) }
        if videoDeviceInput == nil {
            let configResult = (try? configVideoInput()) ?? false
            if !configResult { return }
        }
        if movieFileOutput == nil { configMovieFileOutput() }
        startSessionSync()
        if isRecordingMovieFile() { return }
        guard let movieFileOutput, let videoConnection = movieFileOutput.connection(with: .video) else { return }
        if videoConnection.isVideoOrientationSupported {
            videoConnection.videoOrientation = getCurrentVideoOrientation()
        }
        videoConnection.preferredVideoStabilizationMode = .auto
        // Smooth autofocus slows the lens's focusing, so that a moving shot does not hunt.
        if let device = getActiveCamera(), device.isSmoothAutoFocusEnabled {
            do {
                try device.lockForConfiguration()
                device.isSmoothAutoFocusEnabled = true
                device.unlockForConfiguration()
            } catch {
                DispatchQueue.main.async {
                    self.delegate?.deviceConfigurationFailedWithError(error)
                }
            }
        }
        guard let movieFileOutputURL = getVideoTempPathURL() else { return }
        self.movieFileOutputURL = movieFileOutputURL
        try? movieFileOutput.startRecording(to: movieFileOutputURL, recordingDelegate: self)
    }

    func stopRecordingMovieFile() {
        if isRecordingMovieFile() {
            movieFileOutput?.stopRecording()
        }
    }

    func isRecordingMovieFile() -> Bool {
        movieFileOutput?.isRecording ?? false
    }

    func movieFileRecordedDuration() -> MediaTime {
        movieFileOutput?.recordedDuration ?? .zero
    }

    func fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {
        if let error {
            DispatchQueue.main.async {
                self.delegate?.mediaCaptureMovieFileFailedWithError(error)
            }
        } else {
            DispatchQueue.main.async {
                self.delegate?.mediaCaptureMovieFileSuccess()
            }
            if let movieFileOutputURL {
                writeVideoToAssetsLibrary(movieFileOutputURL)
            }
            movieFileOutputURL = nil
        }
    }

    private func getVideoTempPathURL() -> URL? {
        var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("video.XXXXXX").path.utf8CString)
        guard let tempPath = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        return URL(fileURLWithPath: String(cString: tempPath)).appendingPathComponent("temp_video.mov")
    }

    private func writeVideoToAssetsLibrary(_ videoURL: URL) {
        // Writing a video takes longer than a photo: check first that it can be written.
        guard library.isVideoCompatible(at: videoURL).isCompatible else { return }
        library.saveVideo(at: videoURL) { result in
            switch result {
            case .failure(let error):
                DispatchQueue.main.async {
                    self.delegate?.assetLibraryWriteMovieFileFailedWithError(error)
                }
            case .success:
                self.getVideoCoverImageWithVideoURL(videoURL) { coverImage in
                    DispatchQueue.main.async {
                        self.delegate?.assetLibraryWriteMovieFileSuccessWithCoverImage(coverImage)
                    }
                }
            }
        }
    }

    private func getVideoCoverImageWithVideoURL(_ videoURL: URL, callBlock: @escaping @Sendable (CaptureImage?) -> Void) {
        captureVideoQueue.async {
            let asset = try? MediaAsset(url: videoURL)
            let imageGenerator = asset.map { AssetImageGenerator(asset: $0) }
            // 100 wide and 0 high: the height follows the video's aspect ratio.
            imageGenerator?.maximumSize = MediaAsset.Size(width: 100, height: 0)
            // Honour the video's orientation, or the cover may come out on its side.
            imageGenerator?.appliesPreferredTrackTransform = true
            let image = try? imageGenerator?.copyCGImage(at: .zero, actualTime: nil)
            DispatchQueue.main.async {
                callBlock(image)
            }
        }
    }
}
