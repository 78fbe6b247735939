/// Where a recording's samples go in its file: time zero, the pauses, and source time → file
/// time. A value with no device, thread or file behind it, so its arithmetic is tested alone.
///
/// The file's time zero is the first sample admitted (the first video frame, or without video
/// the first audio sample). Pauses are decided on video frames (so the picture has no jump) or,
/// without video, on audio samples; time spent paused is cut out of the file, for both tracks
/// alike.
struct RecordingTimeline: Sendable {
    /// A stretch of source time that is not in the file: `[start, end)`.
    struct Pause: Sendable, Equatable {
        var start: MediaTime
        var end: MediaTime
    }

    /// A change the recording reports to its delegate.
    enum Transition: Sendable, Equatable {
        case started
        case paused
        case resumed
    }

    /// What to do with a video frame.
    enum VideoDecision: Sendable, Equatable {
        /// Write it at this file time.
        case write(fileTime: MediaTime)
        /// It falls in a pause.
        case skip
    }

    /// A run of consecutive audio samples of one buffer that are all written or all skipped.
    struct Run: Sendable, Equatable {
        /// Sample indexes within the buffer.
        var samples: Range<Int64>
        /// Source time of the run's first sample.
        var time: MediaTime
        /// False for samples before time zero or inside a pause.
        var isWritten: Bool
    }

    /// Source time of the file's time zero; nil until the first sample is admitted.
    private(set) var origin: MediaTime?
    /// Pauses that have ended, in order.
    private(set) var pauses: [Pause] = []
    /// Start of the pause in progress.
    private(set) var pausedSince: MediaTime?
    /// Total length of the ended pauses.
    private(set) var pausedTotal = MediaTime.zero
    private var pauseRequest: MediaTime?
    private var resumeRequest: MediaTime?

    var isPaused: Bool { pausedSince != nil }

    /// Makes `time` the file's time zero unless the recording has started; `.started` if it
    /// just did.
    mutating func start(at time: MediaTime) -> Transition? {
        guard origin == nil else { return nil }
        origin = time
        return .started
    }

    /// Asks for a pause at the first frame (or, without video, sample) at or after `time`.
    mutating func requestPause(at time: MediaTime) {
        pauseRequest = time
        resumeRequest = nil
    }

    /// Asks for the pause to end at the first frame at or after `time`.
    mutating func requestResume(at time: MediaTime) {
        resumeRequest = time
    }

    /// Ends the pause at `time` at once (a recording without video has no frame to wait for).
    mutating func resume(at time: MediaTime) -> Transition? {
        guard let since = pausedSince else { return nil }
        pauses.append(Pause(start: since, end: time))
        pausedTotal += time - since
        pausedSince = nil
        resumeRequest = nil
        return .resumed
    }

    /// Decides a video frame captured at `pts`, given the end of the last frame written: a pause
    /// begins where the last written frame ended, and ends at the first frame at or after the
    /// resume request, so the file's picture runs on without a jump.
    mutating func admitVideo(at pts: MediaTime, lastWrittenEnd: MediaTime?, transitions: inout [Transition]) -> VideoDecision {
        guard let origin else { return .skip }
        if pausedSince == nil, let request = pauseRequest, pts >= request {
            beginPause(at: lastWrittenEnd ?? origin)
            transitions.append(.paused)
        }
        if pausedSince != nil {
            guard let request = resumeRequest, pts >= request else { return .skip }
            if let resumed = resume(at: pts) { transitions.append(resumed) }
        }
        return .write(fileTime: fileTime(of: pts))
    }

    /// Without video, a pause begins at the first audio sample at or after the request.
    mutating func admitAudioOnly(at pts: MediaTime) -> Transition? {
        guard pausedSince == nil, let request = pauseRequest, pts >= request else { return nil }
        beginPause(at: pts)
        return .paused
    }

    private mutating func beginPause(at time: MediaTime) {
        pausedSince = time
        pauseRequest = nil
    }

    /// Where source time `time` lies in the file: less time zero and the pauses ended before it.
    func fileTime(of time: MediaTime) -> MediaTime {
        guard let origin else { return .zero }
        var paused = MediaTime.zero
        for pause in pauses where pause.end <= time { paused += pause.end - pause.start }
        return time - origin - paused
    }

    /// The file position, in samples at `rate`, of a sample captured at `time`.
    func filePosition(of time: MediaTime, rate: Int32) -> Int64 {
        fileTime(of: time).convertScale(rate, method: .roundHalfAwayFromZero).value
    }

    /// How many of `count` samples at `rate` starting at source time `start` lie before `limit`.
    static func samples(before limit: MediaTime, from start: MediaTime, count: Int64, rate: Int32) -> Int64 {
        min(count, max(0, (limit - start).convertScale(rate, method: .roundTowardZero).value))
    }

    /// Splits samples `[0, count)` of a buffer captured from `start` at `rate` into runs that
    /// are wholly written or wholly skipped (before time zero, or inside a pause, the open one
    /// included), in order. Calls `body` per run; allocates nothing.
    func forEachRun<Failure: Error>(from start: MediaTime, count: Int64, rate: Int32,
                                    _ body: (Run) throws(Failure) -> Void) throws(Failure) {
        guard let origin else { return }
        let open = pausedSince.map { Pause(start: $0, end: .positiveInfinity) }
        var index: Int64 = 0
        while index < count {
            let time = start + MediaTime(value: index, timescale: rate)
            var end = count
            var skip = time < origin
            if skip { end = min(count, Self.index(of: origin, from: start, rate: rate)) }
            func bound(by pause: Pause) {
                if time >= pause.start, time < pause.end {
                    skip = true
                    end = min(end, pause.end.isNumeric ? Self.index(of: pause.end, from: start, rate: rate) : count)
                } else if pause.start > time {
                    end = min(end, Self.index(of: pause.start, from: start, rate: rate))
                }
            }
            for pause in pauses { bound(by: pause) }
            if let open { bound(by: open) }
            end = max(end, index + 1)
            try body(Run(samples: index..<end, time: time, isWritten: !skip))
            index = end
        }
    }

    /// The index of the sample at `time` in a buffer starting at `start`.
    private static func index(of time: MediaTime, from start: MediaTime, rate: Int32) -> Int64 {
        max(0, (time - start).convertScale(rate, method: .roundHalfAwayFromZero).value)
    }
}
