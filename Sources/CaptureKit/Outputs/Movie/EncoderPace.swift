/// How a live recording keeps its video encoder close behind the camera, so that a killed
/// process loses at most about a second: a value type that is told when frames are taken from
/// the queue and when their packets leave the encoder, and answers what to do.
///
/// A frame's *lag* is the time from its capture to its packet leaving the encoder; a SIGKILL
/// loses the lag plus the open fragment. While the encoder keeps up the lag is its own delay
/// (lookahead, B-frames and frame threads: about 0.3 s for x264's `veryfast` with the shorter
/// lookahead of ``VideoEncoder/Speed/lowLatency`` at 30 fps, 0.2 s for `superfast`).
/// When it cannot keep up — a loaded machine, a big picture — frames wait in the queue and the
/// lag grows without bound. A live recording therefore **starts one step faster** than its
/// settings (``Limits/firstCalmPeriod``), so its first fragment is on disk well within a second
/// of its first frame whatever the load, and moves to the configured preset once the encoder has
/// shown it keeps up. Then, in this order:
/// 1. **Faster**: the encoder steps to a faster preset (a step at most every
///    ``Limits/settleTime``) while the lag is over ``Limits/stepDownLag``. Frames handed to an
///    encoder in its first ``Limits/settleTime`` do not count: they include the backlog of the
///    switch itself.
/// 2. **Drop**: a frame that waited in the queue longer than ``Limits/queueLimit`` is dropped
///    (and counted) when newer frames wait behind it; the newest frame is always encoded, so
///    the picture keeps moving at whatever rate the encoder manages.
/// 3. **Slower again**: after ``Limits/calmPeriod`` with a small lag and no drop, one step
///    back towards the configured preset. A step back that brings the lag back within twice
///    the calm period doubles the period (up to ``Limits/longestCalmPeriod``), so an encoder
///    on the edge does not switch back and forth.
struct EncoderPace {
    /// The thresholds (times on the capture clock).
    struct Limits {
        /// How long a frame may wait in the queue while newer frames wait behind it.
        var queueLimit = MediaTime(value: 200, timescale: 1000)
        /// The lag over which the encoder steps to a faster preset.
        var stepDownLag = MediaTime(value: 550, timescale: 1000)
        /// The lag under which the encoder counts as keeping up.
        var calmLag = MediaTime(value: 400, timescale: 1000)
        /// How long after a switch the new encoder's lag is not judged.
        var settleTime = MediaTime(value: 1, timescale: 2)
        /// How long the encoder keeps up before a step back towards the configured preset.
        var calmPeriod = MediaTime(value: 10, timescale: 1)
        /// How long the encoder keeps up before its first step back: the recording started one
        /// step faster than its settings only to be safe.
        var firstCalmPeriod = MediaTime(value: 3, timescale: 1)
        /// The longest calm period after repeated failed steps back.
        var longestCalmPeriod = MediaTime(value: 160, timescale: 1)
    }

    /// What to do with the frame taken from the queue.
    enum Admission: Equatable { case encode, drop }

    /// A change of encoder speed.
    enum Step: Equatable { case faster, slower }

    let limits: Limits
    /// Steps from the configured preset: 0 is the configured one.
    private(set) var level = 0
    /// The fastest level there is (lowered when a step turns out impossible).
    private(set) var fastestLevel: Int
    private var calmPeriod: MediaTime
    private var calmSince: MediaTime?
    private var lastStep: MediaTime?
    private var lastStepSlower: MediaTime?
    private var lastDrop: MediaTime?

    /// A pace with `steps` faster levels, starting at `level`.
    init(steps: Int, level: Int = 0, limits: Limits = Limits()) {
        self.limits = limits
        fastestLevel = steps
        self.level = min(level, steps)
        calmPeriod = self.level > 0 ? limits.firstCalmPeriod : limits.calmPeriod
    }

    /// A frame captured at `captured` is taken from the queue at `now`; `newerWaiting` when
    /// frames captured after it are queued behind it; `oldestInside` the capture and hand-over
    /// times of the oldest frame inside the encoder (handed to it, no packet yet). Returns what
    /// to do with the frame, and the speed change to make first, if any: the oldest frame
    /// inside shows the lag before any packet does (an encoder's first packet takes longest).
    mutating func admit(captured: MediaTime, now: MediaTime, newerWaiting: Bool,
                        oldestInside: (captured: MediaTime, handed: MediaTime)?) -> (Admission, Step?) {
        var step: Step?
        if let oldest = oldestInside, isSettled(oldest.handed), now - oldest.captured > limits.stepDownLag { step = stepDown(now: now) }
        guard newerWaiting, now - captured > limits.queueLimit else { return (.encode, step) }
        lastDrop = now
        calmSince = nil
        return (.drop, step)
    }

    /// The packet of a frame captured at `captured`, handed to the encoder at `handed`, left
    /// the encoder at `now`. Returns the speed change to make now, if any.
    mutating func packetLeft(captured: MediaTime, handed: MediaTime, now: MediaTime) -> Step? {
        guard isSettled(handed) else { return nil }
        let lag = now - captured
        if lag > limits.stepDownLag { return stepDown(now: now) }
        let dropping = lastDrop.map { now - $0 < limits.settleTime } ?? false
        guard lag < limits.calmLag, !dropping else {
            calmSince = nil
            return nil
        }
        let since = calmSince ?? now
        calmSince = since
        guard level > 0, now - since >= calmPeriod else { return nil }
        level -= 1
        lastStep = now
        lastStepSlower = now
        calmSince = nil
        calmPeriod = max(calmPeriod, limits.calmPeriod)
        return .slower
    }

    /// Whether a frame handed over at `handed` went to an encoder past its settling time.
    private func isSettled(_ handed: MediaTime) -> Bool {
        lastStep.map { handed - $0 >= limits.settleTime } ?? true
    }

    /// One step faster, unless there is no faster level. A step faster soon after a step
    /// back doubles the calm period.
    private mutating func stepDown(now: MediaTime) -> Step? {
        calmSince = nil
        guard level < fastestLevel else { return nil }
        if let slower = lastStepSlower, now - slower < calmPeriod.multiplied(by: 2, dividedBy: 1) {
            calmPeriod = min(calmPeriod.multiplied(by: 2, dividedBy: 1), limits.longestCalmPeriod)
        }
        level += 1
        lastStep = now
        return .faster
    }

    /// The step just asked for cannot be taken (the other encoder would not fit the track, or
    /// does not open): the level goes back, and no step faster goes that far again.
    mutating func stepFailed(_ step: Step) {
        switch step {
        case .faster:
            level -= 1
            fastestLevel = level
        case .slower:
            level += 1
        }
    }
}
