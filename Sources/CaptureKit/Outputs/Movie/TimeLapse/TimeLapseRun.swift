import Foundation
import Synchronization

/// One time-lapse, from `start` to its summary: the worker's side of a
/// ``CaptureTimeLapseOutput``.
///
/// The device thread only decides (``TimeLapseGrid``, under a short lock) and hands shots over
/// (``TimeLapseHandOff``); the worker thread encodes and saves the photos
/// (``TimeLapsePhotoWriter``) and gives the movie its frames, re-stamped one frame duration
/// apart by their place on the schedule, through a ``MovieRecording`` — the movie output's own
/// encoder, muxer and fragments — that holds its producer (this worker, never the camera) back
/// instead of dropping.
final class TimeLapseRun: @unchecked Sendable {
    // Unchecked Sendable: the recording and the movie's first frame are confined to the run's worker thread; the rest is behind Mutexes or the hand-off.
    struct Configuration: Sendable {
        var schedule: TimeLapseSchedule
        var tolerance: MediaTime
        /// The first slot past the maximum duration.
        var endSlot: Int?
        /// Shots to take before ending.
        var maxShots: Int?
        var wallClock: SessionWallClock
        var photos: TimeLapsePhotoWriter?
        var movie: MovieRecording.Configuration?
        /// Whether the device may be held back (no live device feeds the output).
        var holdBack: Bool
    }

    /// What the run tells its output, on the worker thread, in order.
    enum Event: Sendable {
        case started(MediaTime)
        case shot(TimeLapseShot)
        case missed(TimeLapseMiss)
        case movieFinished(RecordedMovie)
        case finished(TimeLapseSummary)
    }

    /// What the device thread decides with (and ``stop(_:)`` ends).
    private struct Decider {
        var grid: TimeLapseGrid
        var stopped = false
        var shotsQueued = 0
    }

    let configuration: Configuration
    let statistics = Mutex(CaptureTimeLapseOutput.Statistics())
    private let decider: Mutex<Decider>
    private let handOff = TimeLapseHandOff()
    private let onEvent: @Sendable (Event) -> Void
    private var worker: WorkerThread?

    // Worker-thread state.
    private var recording: MovieRecording?
    /// The place on the schedule of the movie's first frame (its file time zero).
    private var firstMoviePosition: Int?
    private var finished = false

    /// How long the worker waits for the movie to close before giving up on it.
    private static let movieCloseTimeout: TimeInterval = 120

    /// Checks the destinations and opens the movie — everything that can fail before the first
    /// frame fails here, on the caller's thread.
    init(_ configuration: Configuration, onEvent: @escaping @Sendable (Event) -> Void) throws(CaptureError) {
        self.configuration = configuration
        self.onEvent = onEvent
        decider = Mutex(Decider(grid: TimeLapseGrid(schedule: configuration.schedule, wallClock: configuration.wallClock,
                                                    tolerance: configuration.tolerance, endSlot: configuration.endSlot)))
        try configuration.photos?.check()
        if let movie = configuration.movie {
            recording = try MovieRecording(movie) { [handOff] event in
                if case .finished(let error) = event { handOff.post(.movieEnded(error)) }
            }
        }
    }

    /// Starts the worker (and the movie's encoder thread).
    func begin() {
        recording?.begin()
        worker = WorkerThread(name: "CaptureKit.timeLapse") { [self] thread in
            while !finished, !thread.isStopping {
                if let job = handOff.next(before: Date(timeIntervalSinceNow: 0.25)) { handle(job) }
            }
        }
    }

    // MARK: Device thread

    /// Decides a frame: the grid's verdict under one short lock, then at most a few appends to
    /// the hand-off. Never waits, except for an unpaced device's shot (``Configuration/holdBack``).
    func receive(_ sample: SampleBuffer) {
        guard sample.pixelBuffer != nil else { return }
        let maxShots = configuration.maxShots
        let outcome = decider.withLock { decider -> (decision: TimeLapseGrid.Decision, started: MediaTime?, ends: Bool)? in
            guard !decider.stopped else { return nil }
            let wasStarted = decider.grid.origin != nil
            let decision = decider.grid.decide(frameAt: sample.presentationTimeStamp)
            if decision.shot != nil { decider.shotsQueued += 1 }
            let ends = decider.grid.isFinished || maxShots.map { decider.shotsQueued >= $0 } == true
            if ends { decider.stopped = true }
            return (decision, wasStarted ? nil : decider.grid.origin, ends)
        }
        guard let outcome else { return }
        statistics.withLock {
            $0.framesSeen += 1
            $0.missedSlots += outcome.decision.missed?.count ?? 0
        }
        if let origin = outcome.started { handOff.post(.started(origin)) }
        if let missed = outcome.decision.missed, missed.count > 0 {
            handOff.post(.missed(TimeLapseMiss(slots: missed.slots, count: missed.count, reason: .late)))
        }
        if let slot = outcome.decision.shot, !handOff.offer(sample, slot: slot, holdBack: configuration.holdBack), !handOff.isClosed {
            // The worker is still busy with an earlier shot: this slot is missed, not waited for.
            decider.withLock { $0.shotsQueued -= 1 }
            statistics.withLock { $0.missedSlots += 1 }
            handOff.post(.missed(TimeLapseMiss(slots: slot.index..<(slot.index + 1), count: 1, reason: .busy)))
        }
        if outcome.ends { handOff.post(.stop(nil)) }
    }

    /// Ends the time-lapse after the shots already handed over (`reason`: why, if an error).
    func stop(_ reason: CaptureError? = nil) {
        let first = decider.withLock { decider -> Bool in
            defer { decider.stopped = true }
            return !decider.stopped
        }
        // A run that ended by itself has its stop queued already; a reason still replaces none.
        if first || reason != nil { handOff.post(.stop(reason)) }
    }

    /// Ends the worker without finishing anything (the output went away).
    func cancel() {
        handOff.close()
        worker?.stop()
        recording?.cancel()
    }

    // MARK: Worker thread

    private func handle(_ job: TimeLapseHandOff.Job) {
        switch job {
        case .started(let origin):
            onEvent(.started(origin))
        case .missed(let miss):
            onEvent(.missed(miss))
        case .shot(let sample, let slot):
            do throws(CaptureError) {
                try take(sample, slot: slot)
            } catch {
                finish(error)
            }
        case .stop(let reason):
            finish(reason)
        case .movieEnded(let error):
            // The movie failed on its own (a full disk): that ends the time-lapse.
            let movie = recordedMovie(error)
            recording = nil
            onEvent(.movieFinished(movie))
            finish(error ?? .internalError("the time-lapse movie ended by itself"), movie: movie)
        }
    }

    private func take(_ sample: SampleBuffer, slot: TimeLapseGrid.Slot) throws(CaptureError) {
        let date = configuration.wallClock.date(of: sample.presentationTimeStamp) ?? Date()
        let saved = try configuration.photos?.save(sample, date: date)
        var movieFrame: Int?
        if let recording, let movie = configuration.movie, let video = movie.video {
            let origin = firstMoviePosition ?? slot.position
            firstMoviePosition = origin
            // The frame's place on the schedule, in frames of the movie's rate: a missed slot
            // leaves its place empty, so the movie runs on the grid.
            let frameDuration = video.frameDuration
            let restamped = SampleBuffer(media: sample.media, presentationTimeStamp: frameDuration * Int64(slot.position),
                                         duration: frameDuration, sequenceNumber: UInt64(slot.position), compressedFrame: sample.compressedFrame)
            recording.offer(restamped)
            movieFrame = slot.position - origin
        }
        statistics.withLock { $0.shots += 1 }
        onEvent(.shot(TimeLapseShot(slot: slot.index, slotTime: slot.time, captureTime: sample.presentationTimeStamp, date: date,
                                    photoURL: saved?.url, asset: saved?.asset, movieFrame: movieFrame)))
    }

    /// Closes the movie (waiting for its file), then reports the end. Runs once.
    private func finish(_ reason: CaptureError?, movie finishedMovie: RecordedMovie? = nil) {
        guard !finished else { return }
        decider.withLock { $0.stopped = true }
        var movie = finishedMovie
        if let recording {
            recording.queue.push(.stop(at: MonotonicClock.now(), reason: .requested))
            let deadline = Date(timeIntervalSinceNow: Self.movieCloseTimeout)
            var ended: CaptureError?? = nil
            while ended == nil, Date() < deadline {
                if case .movieEnded(let error)? = handOff.next(before: deadline) { ended = .some(error) }
            }
            if ended == nil { recording.cancel() }
            let closed = recordedMovie(ended ?? .internalError("the time-lapse movie did not close within \(Int(Self.movieCloseTimeout)) s"))
            self.recording = nil
            onEvent(.movieFinished(closed))
            movie = closed
        }
        finished = true
        handOff.close()
        onEvent(.finished(TimeLapseSummary(statistics: statistics.withLock { $0 }, movie: movie, error: reason)))
    }

    private func recordedMovie(_ error: CaptureError?) -> RecordedMovie {
        let progress = recording?.progress.withLock { $0 } ?? MovieRecording.Progress()
        return RecordedMovie(url: configuration.movie?.url ?? URL(fileURLWithPath: "/dev/null"), duration: progress.duration,
                             fileSize: progress.fileSize, videoFrameCount: progress.videoFrames, droppedSampleCount: progress.dropped,
                             videoGaps: progress.videoGaps, error: error)
    }
}
