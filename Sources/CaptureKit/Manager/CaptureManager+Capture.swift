import Foundation

extension CaptureManager {
    // MARK: Photos

    /// Takes a photo and saves it to the library, telling the delegate each step (the seed's
    /// `captureStillImage`). Configures what is missing first.
    public func captureStillImage() {
        Task { _ = try? await takePhoto() }
    }

    /// Takes a photo and saves it to the library; the delegate hears the same as with
    /// ``captureStillImage()``.
    public func takePhoto() async throws(CaptureError) -> SavedPhoto {
        let photo: CapturePhoto
        do throws(CaptureError) {
            let output = try await prepare(forMovie: false)
            guard let output = output as? CapturePhotoOutput else { throw CaptureError(.internalError, "no photo output") }
            photo = try await output.capturePhoto(with: CapturePhotoSettings())
        } catch {
            notify { $0.mediaCaptureImageFailed(with: error) }
            throw error
        }
        notify { $0.mediaCaptureImageFileSuccess() }
        do throws(CaptureError) {
            guard let data = photo.fileDataRepresentation(), let image = photo.pixelBuffer else {
                throw CaptureError(.internalError, "the photo has no data")
            }
            let asset = try await library.saveImage(data, fileExtension: photo.fileType.fileExtension)
            notify { $0.assetLibraryWriteImageSuccess(with: image, asset: asset) }
            return SavedPhoto(photo: photo, asset: asset)
        } catch {
            notify { $0.assetLibraryWriteImageFailed(with: error) }
            throw error
        }
    }

    // MARK: Movies

    /// Whether a movie is being recorded (`isRecordingMovieFile`).
    public var isRecordingMovieFile: Bool { state.withLock { $0.movieOutput }?.isRecording ?? false }

    /// How much of the movie has been recorded (`movieFileRecordedDuration`).
    public var movieFileRecordedDuration: MediaTime { state.withLock { $0.movieOutput }?.recordedDuration ?? .zero }

    /// Starts recording a movie (the seed's `startRecordingMovieFile`); when it ends, the movie
    /// goes to the library and the delegate gets its cover image. Configures what is missing
    /// first (including the default microphone, when there is one).
    public func startRecordingMovieFile() async throws(CaptureError) {
        do throws(CaptureError) {
            guard let output = try await prepare(forMovie: true) as? CaptureMovieFileOutput else {
                throw CaptureError(.internalError, "no movie output")
            }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("capturekit-\(UUID().uuidString).mov")
            try output.startRecording(to: url, recordingDelegate: MovieRecordingBridge(manager: self))
        } catch {
            notify { $0.mediaCaptureMovieFileFailed(with: error) }
            throw error
        }
    }

    /// Stops the movie (`stopRecordingMovieFile`); the delegate hears the outcome.
    public func stopRecordingMovieFile() {
        state.withLock { $0.movieOutput }?.stopRecording()
    }

    /// Stops the movie and returns it once it is in the library with its cover image.
    public func finishRecordingMovieFile() async throws(CaptureError) -> SavedMovie {
        guard isRecordingMovieFile else { throw CaptureError(.invalidState, "no movie is being recorded") }
        let result = await withCheckedContinuation { continuation in
            state.withLock { $0.movieWaiters.append(continuation) }
            stopRecordingMovieFile()
        }
        return try result.get()
    }

    /// The recording ended (on the movie output's delegate queue): into the library it goes.
    func movieFinished(_ url: URL, error: CaptureError?, recording: RecordedMovie?) {
        let outcome: Result<SavedMovie, CaptureError>
        if let error, !error.recordingSuccessfullyFinished {
            notify { $0.mediaCaptureMovieFileFailed(with: error) }
            outcome = .failure(error)
        } else {
            notify { $0.mediaCaptureMovieFileSuccess() }
            outcome = saveMovie(url, recording: recording)
        }
        let waiters = state.withLock { state in
            defer { state.movieWaiters.removeAll() }
            return state.movieWaiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private func saveMovie(_ url: URL, recording: RecordedMovie?) -> Result<SavedMovie, CaptureError> {
        do throws(CaptureError) {
            if case .incompatible(let reason) = library.isVideoCompatible(at: url) {
                throw CaptureError(.unsupportedFile, "the movie cannot go to the library: \(reason)", path: url.path)
            }
            let asset = try library.saveVideo(at: url, move: true)
            let generator = AssetImageGenerator(asset: asset)
            generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
            generator.appliesPreferredTrackTransform = true
            let cover = try generator.copyImage(at: .zero).image
            notify { $0.assetLibraryWriteMovieFileSuccess(with: cover, asset: asset) }
            let recorded = recording ?? RecordedMovie(url: asset.fileURL, duration: asset.duration, fileSize: 0,
                                                      videoFrameCount: 0, droppedSampleCount: 0, videoGaps: [], error: nil)
            return .success(SavedMovie(recording: recorded, asset: asset, coverImage: cover))
        } catch {
            notify { $0.assetLibraryWriteMovieFileFailed(with: error) }
            return .failure(error)
        }
    }

    // MARK: Preparing

    /// Configures what the seed's capture methods configure when missing, starts the session
    /// and applies the orientation; returns the photo or movie output.
    private func prepare(forMovie: Bool) async throws(CaptureError) -> CaptureOutput {
        // The seed's default preset is for a session the manager builds; a session the
        // application already runs keeps its preset (and the picture its viewers see).
        if !state.withLock({ $0.isPresetConfigured }), !captureSession.isRunning { configureSessionPreset(.medium) }
        if state.withLock({ $0.videoInput }) == nil { try configureVideoInput(position: .back) }
        if forMovie, state.withLock({ $0.audioInput }) == nil, CaptureDevice.default(for: .audio) != nil {
            try configureAudioInput()
        }
        if forMovie { try configureMovieFileOutput() } else { try configureStillImageOutput() }
        try await startSession()
        let (output, orientation) = state.withLock { state -> (CaptureOutput?, CaptureConnection.VideoOrientation) in
            (forMovie ? state.movieOutput : state.photoOutput, state.videoOrientation)
        }
        guard let output else { throw CaptureError(.internalError, "the output went away while preparing") }
        if let connection = output.connection(with: .video), connection.isVideoOrientationSupported {
            connection.videoOrientation = orientation
        }
        return output
    }
}

/// Passes a movie output's didFinish on to its manager.
final class MovieRecordingBridge: CaptureFileOutputRecordingDelegate {
    private let manager: CaptureManager

    init(manager: CaptureManager) {
        self.manager = manager
    }

    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {
        manager.movieFinished(fileURL, error: error as? CaptureError, recording: output.lastRecordedMovie)
    }
}
