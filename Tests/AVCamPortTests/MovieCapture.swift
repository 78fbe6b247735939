import CaptureKit
import Foundation

// AVCam's MovieCapture, ported with the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md. Its
// Combine timer becomes a task that reads `recordedDuration` (Combine is not on Linux).

/// Records movies through a movie file output; `stopRecording()` returns the finished file.
final class MovieCapture: OutputService, @unchecked Sendable {
    /// What the movie output is doing, for the UI.
    private(set) var captureActivity: CaptureActivity = .idle

    /// The output the service adds to the session.
    let output = CaptureMovieFileOutput()
    private var movieOutput: CaptureMovieFileOutput { output }

    private var delegate: MovieCaptureDelegate?
    private var timerTask: Task<Void, Never>?

    private(set) var capabilities: CaptureCapabilities = .unknown

    /// Starts recording to a new temporary file.
    func startRecording() throws {
        guard !movieOutput.isRecording else { return }

        guard let connection = movieOutput.connection(with: .video) else {
            fatalError("Configuration error. No video connection found.")
        }

        // HEVC when the output can record it in real time; H.264 otherwise.
        if movieOutput.availableVideoCodecTypes.contains(.hevc) {
            movieOutput.setOutputSettings([VideoCodecKey: VideoCodecType.hevc], for: connection)
        }

        if connection.isVideoStabilizationSupported {
            connection.preferredVideoStabilizationMode = .auto
        }

        startMonitoringDuration()

        delegate = MovieCaptureDelegate()
        try movieOutput.startRecording(to: URL.movieFileURL, recordingDelegate: delegate!)
    }

    /// Stops recording and returns the movie once its file is closed.
    func stopRecording() async throws -> Movie {
        try await withCheckedThrowingContinuation { continuation in
            delegate?.continuation = continuation
            movieOutput.stopRecording()
            stopMonitoringDuration()
        }
    }

    private func startMonitoringDuration() {
        captureActivity = .movieCapture()
        timerTask = Task { [weak self] in
            while !Task.isCancelled, let self {
                self.captureActivity = .movieCapture(duration: self.movieOutput.recordedDuration.seconds)
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private func stopMonitoringDuration() {
        timerTask?.cancel()
        captureActivity = .idle
    }

}

/// Resumes the waiting `stopRecording()` when the file is closed.
private final class MovieCaptureDelegate: NSObject, CaptureFileOutputRecordingDelegate, @unchecked Sendable {
    var continuation: CheckedContinuation<Movie, Error>?

    func fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [CaptureConnection], error: Error?) {
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: Movie(url: outputFileURL))
        }
    }
}

extension URL {
    /// A unique movie file in the temporary directory.
    static var movieFileURL: URL {
        URL.temporaryDirectory.appending(component: UUID().uuidString).appendingPathExtension("mov")
    }
}
