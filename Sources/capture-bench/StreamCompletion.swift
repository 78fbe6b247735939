import CaptureKit
import Dispatch
import Synchronization

/// Tells a `stream-1080p` run when its file devices have ended, then when the stream output is
/// done, as `capture stream` does with a `file:` device.
///
/// As the session's delegate it hears `deviceReachedEnd` for each device; once every one has
/// ended the benchmark stops the session (frames already queued are still encoded and sent: the
/// output stops in arrival order). As the stream output's delegate it hears the events
/// `CaptureStreamOutput.events` carries: an `.ended` for each destination and, with a
/// recording, `.recordingFinished` — after which the statistics are final.
final class StreamCompletion: CaptureSessionDelegate, CaptureStreamOutputDelegate {
    /// How the stream output ended.
    struct Outcome: Sendable {
        /// The errors destinations ended with (a destination that gave up).
        var destinationErrors: [CaptureError] = []
        /// The recording's error, when it failed.
        var recordingError: CaptureError?
        /// Reconnections and drops, as the events describe them.
        var incidents: [String] = []
    }

    private struct State {
        var pendingDevices: Set<String>
        var pendingDestinations: Int
        var pendingRecording: Bool
        var outcome = Outcome()
    }

    private let state: Mutex<State>
    private let inputsEnded = DispatchSemaphore(value: 0)
    private let outputEnded = DispatchSemaphore(value: 0)

    /// Watches the devices with these unique IDs, and a stream output with `destinations`
    /// destinations and a recording when `records`.
    init(deviceIDs: Set<String>, destinations: Int, records: Bool) {
        state = Mutex(State(pendingDevices: deviceIDs, pendingDestinations: destinations, pendingRecording: records))
    }

    func session(_ session: CaptureSession, deviceReachedEnd deviceID: String) {
        let ended = state.withLock { state -> Bool in
            guard state.pendingDevices.remove(deviceID) != nil else { return false }
            return state.pendingDevices.isEmpty   // signal once
        }
        if ended { inputsEnded.signal() }
    }

    func streamOutput(_ output: CaptureStreamOutput, didReport event: StreamEvent) {
        let done = state.withLock { state -> Bool in
            switch event {
            case .ended(_, let error):
                if let error { state.outcome.destinationErrors.append(error) }
                state.pendingDestinations -= 1
            case .recordingFinished(_, let error):
                state.outcome.recordingError = error
                state.pendingRecording = false
            case .reconnecting, .dropped:
                state.outcome.incidents.append(event.description)
                return false
            case .connecting, .connected, .bitRateChanged, .recordingStarted:
                return false
            }
            return state.pendingDestinations == 0 && !state.pendingRecording
        }
        if done { outputEnded.signal() }
    }

    /// Whether every device reached its end within `seconds`.
    func waitForInputs(seconds: Double) -> Bool {
        inputsEnded.wait(timeout: .now() + seconds) == .success
    }

    /// How the stream output ended, or nil when a destination or the recording has not ended
    /// within `seconds` (of the session stopping).
    func waitForOutput(seconds: Double) -> Outcome? {
        guard outputEnded.wait(timeout: .now() + seconds) == .success else { return nil }
        return state.withLock { $0.outcome }
    }
}
