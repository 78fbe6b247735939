/// The session's lifecycle as a value: its ``CaptureSession/State`` and the devices it has
/// lost, with every transition a method that checks the transition is legal and returns what
/// the session must do about it. `CaptureSession` keeps one in its model and changes its state
/// only through these methods (under the model's lock), then carries out the returned action
/// after unlocking — so the rules live here, tested without a device.
///
/// ```
/// idle ──start──▶ starting ──started──▶ running ──stop──▶ stopping ──stopped──▶ idle
///   ▲                │                   │  ▲                ▲
///   └──startFailed───┘        deviceLost ▼  │ deviceReturned │
///                                     interrupted ──stop─────┘   (or the lost input removed)
/// ```
struct SessionLifecycle: Sendable, Equatable {
    /// Where the session is.
    private(set) var state: CaptureSession.State = .idle
    /// Unique IDs of the devices that went away and have not come back (while running).
    private(set) var lostDevices: Set<String> = []

    /// Whether device streams should run: running, or interrupted (the lost device's stream
    /// is the one that notices it returning).
    var streamsRun: Bool { state == .running || state == .interrupted }

    /// What the session does after a device came or went.
    enum DeviceAction: Equatable, Sendable {
        /// Nothing changes for the session.
        case none
        /// The session is interrupted now: tell the outputs, post `.wasInterrupted`.
        case interrupt
        /// The device is back but the session does not resume: stop its stream; the session
        /// stays interrupted until it is stopped or the input is removed.
        case stayInterrupted
        /// The device is back: restart its stream if its configuration changed meanwhile; when
        /// `endsInterruption`, tell the outputs, then post `.interruptionEnded`.
        case resume(endsInterruption: Bool)
    }

    /// idle → starting; returns whether the session must now start its streams.
    /// `configurationDepth` is the number of open `beginConfiguration()`s: starting inside a
    /// block is a mistake and throws, while starting a session that already runs (or starts,
    /// or is interrupted) is not and returns false, as AVFoundation's `startRunning()` returns
    /// quietly.
    mutating func start(configurationDepth: Int) throws(CaptureError) -> Bool {
        guard configurationDepth == 0 else {
            throw .invalidState("startRunning() called between beginConfiguration() and commitConfiguration()")
        }
        guard state == .idle else { return false }
        state = .starting
        return true
    }

    /// starting → running: every stream started.
    mutating func started() {
        assert(state == .starting, "started() without start()")
        state = .running
    }

    /// starting → idle: a stream could not start (and those that did were stopped).
    mutating func startFailed() {
        assert(state == .starting, "startFailed() without start()")
        state = .idle
    }

    /// running or interrupted → stopping; returns whether the session must now stop its
    /// streams. Stopping a session that does not run returns false, as AVFoundation's
    /// `stopRunning()` returns quietly.
    mutating func stop() -> Bool {
        guard streamsRun else { return false }
        state = .stopping
        return true
    }

    /// stopping → idle: the streams are stopped. Lost devices are forgotten: the next start
    /// opens whatever is there.
    mutating func stopped() {
        assert(state == .stopping, "stopped() without stop()")
        lostDevices.removeAll()
        state = .idle
    }

    /// The device `id` went away. A running session is interrupted by the first loss.
    mutating func deviceLost(_ id: String) -> DeviceAction {
        lostDevices.insert(id)
        guard state == .running else { return .none }
        state = .interrupted
        return .interrupt
    }

    /// The device `id` came back; `resumes` is the session's `resumesWhenDevicesReturn`. The
    /// interruption ends when the last lost device is back.
    mutating func deviceReturned(_ id: String, resumes: Bool) -> DeviceAction {
        guard resumes else { return .stayInterrupted }
        lostDevices.remove(id)
        return .resume(endsInterruption: endInterruptionIfNothingIsLost())
    }

    /// The committed configuration now uses the devices `ids`: a lost device no longer used no
    /// longer interrupts. Returns whether that ended the interruption (tell the outputs, post
    /// `.interruptionEnded`).
    mutating func inputsChanged(to ids: Set<String>) -> Bool {
        lostDevices.formIntersection(ids)
        return endInterruptionIfNothingIsLost()
    }

    private mutating func endInterruptionIfNothingIsLost() -> Bool {
        guard state == .interrupted, lostDevices.isEmpty else { return false }
        state = .running
        return true
    }
}
