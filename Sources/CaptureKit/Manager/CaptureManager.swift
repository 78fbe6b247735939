import Dispatch
import Foundation
import Synchronization

/// The seed's `CQCaptureManager` for Linux: one object that sets up a capture session, takes
/// photos and records movies into a ``MediaLibrary``, and tells a ``CaptureManagerDelegate``
/// how it went — or returns the results to `async` callers.
///
/// ```swift
/// let manager = CaptureManager(library: try .standard())
/// manager.captureStillImage()                       // → mediaCaptureImageFileSuccess, assetLibraryWriteImageSuccess
/// try await manager.startRecordingMovieFile()
/// manager.stopRecordingMovieFile()                  // → mediaCaptureMovieFileSuccess, assetLibraryWriteMovieFileSuccess
///
/// let saved = try await manager.takePhoto()         // the same, for new code
/// ```
///
/// Every configuration step is also available on its own (preset, inputs by camera position,
/// outputs, start/stop off the caller's thread), as in the seed; the capture calls configure
/// whatever is still missing with the seed's defaults (preset `.medium` unless the session is
/// already running — an application that started it keeps its preset —, the back camera or
/// any camera, the default microphone for movies).
public final class CaptureManager: Sendable {
    /// The session the manager drives; show it in a preview.
    public let captureSession = CaptureSession()
    /// Where photos and movies go.
    public let library: MediaLibrary

    struct State {
        weak var delegate: (any CaptureManagerDelegate)?
        var delegateQueue: DispatchQueue = .main
        var isPresetConfigured = false
        var videoInput: CaptureDeviceInput?
        var audioInput: CaptureDeviceInput?
        var photoOutput: CapturePhotoOutput?
        var movieOutput: CaptureMovieFileOutput?
        var videoOrientation = CaptureConnection.VideoOrientation.landscapeRight
        var movieWaiters: [CheckedContinuation<Result<SavedMovie, CaptureError>, Never>] = []
    }

    let state = Mutex(State())
    /// The seed's `captureVideoQueue`: starting and stopping the session happen here, never on
    /// the caller's thread.
    let sessionQueue = DispatchQueue(label: "CaptureKit.captureManager.session")

    /// A manager saving into `library`.
    public init(library: MediaLibrary) {
        self.library = library
    }

    /// Sets the delegate (held weakly) and the queue it is called on (main by default, as in
    /// the seed).
    public func setDelegate(_ delegate: (any CaptureManagerDelegate)?, queue: DispatchQueue = .main) {
        state.withLock {
            $0.delegate = delegate
            $0.delegateQueue = queue
        }
    }

    /// The orientation photos and movies are tagged with (the seed reads it from the device's
    /// accelerometer; on Linux the application says).
    public var videoOrientation: CaptureConnection.VideoOrientation {
        get { state.withLock { $0.videoOrientation } }
        set { state.withLock { $0.videoOrientation = newValue } }
    }

    /// Calls the delegate on its queue.
    func notify(_ call: @escaping @Sendable (any CaptureManagerDelegate) -> Void) {
        let (delegate, queue) = state.withLock { ($0.delegate, $0.delegateQueue) }
        guard let delegate else { return }
        queue.async { call(delegate) }
    }

    // MARK: Preset

    /// Sets the session preset, or `.high` when the camera cannot do `preset` (the seed's
    /// `configSessionPreset:`).
    public func configureSessionPreset(_ preset: CaptureSession.Preset) {
        captureSession.beginConfiguration()
        let chosen = captureSession.canSetSessionPreset(preset) ? preset : .high
        do throws(CaptureError) {
            try captureSession.setSessionPreset(chosen)
            try captureSession.commitConfiguration()
        } catch {
            try? captureSession.commitConfiguration()
            notify { $0.deviceConfigurationFailed(with: error) }
        }
        state.withLock { $0.isPresetConfigured = true }
    }

    // MARK: Session

    /// Starts the session on the manager's queue and returns at once (`startSessionAsync`).
    public func startSessionAsync() {
        sessionQueue.async { [captureSession] in
            guard !captureSession.isRunning else { return }
            do throws(CaptureError) { try captureSession.startRunning() } catch { self.notify { $0.deviceConfigurationFailed(with: error) } }
        }
    }

    /// Stops the session on the manager's queue and returns at once (`stopSessionAsync`).
    public func stopSessionAsync() {
        sessionQueue.async { [captureSession] in
            guard captureSession.isRunning else { return }
            try? captureSession.stopRunning()
        }
    }

    /// Starts the session unless it runs, off the caller's thread.
    public func startSession() async throws(CaptureError) {
        guard !captureSession.isRunning else { return }
        try await captureSession.start()
    }

    /// Stops the session if it runs, off the caller's thread.
    public func stopSession() async throws(CaptureError) {
        guard captureSession.isRunning else { return }
        try await captureSession.stop()
    }
}
