import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// Ends a CaptureKit recording of file devices when the files end, and lets the benchmark wait
/// for the finished movie, as `capture record --unpaced` does.
///
/// As the session's delegate it hears `deviceReachedEnd` for each device and stops the
/// recording once every one has ended (frames already queued are still written: the recording
/// stops in arrival order). As the recording delegate it hears `didFinishRecording`.
final class RecordCompletion: CaptureSessionDelegate, CaptureFileOutputRecordingDelegate {
    private struct State {
        var pending: Set<String>
        var movie: CaptureMovieFileOutput?
        /// `.some(error)` once the recording finished (`.some(nil)` without error).
        var outcome: CaptureError??
    }

    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)

    /// Watches the devices with these unique IDs and stops `movie` when all have ended.
    init(deviceIDs: Set<String>, movie: CaptureMovieFileOutput) {
        state = Mutex(State(pending: deviceIDs, movie: movie, outcome: nil))
    }

    func session(_ session: CaptureSession, deviceReachedEnd deviceID: String) {
        let movie = state.withLock { state -> CaptureMovieFileOutput? in
            state.pending.remove(deviceID)
            guard state.pending.isEmpty else { return nil }
            defer { state.movie = nil }   // stop once
            return state.movie
        }
        movie?.stopRecording()
    }

    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection],
                    error: (any Error)?) {
        state.withLock { $0.outcome = .some(error as? CaptureError) }
        finished.signal()
    }

    /// The recording's outcome (`.some(nil)` when it finished without error), or nil when it
    /// has not finished within `seconds`.
    func wait(seconds: Double) -> CaptureError?? {
        guard finished.wait(timeout: .now() + seconds) == .success else { return nil }
        return state.withLock { $0.outcome }
    }
}
