import Dispatch
import Foundation
import Synchronization

/// Takes a time-lapse of the session's video: a shot on a fixed schedule that never drifts,
/// saved as JPEG photos (into a ``MediaLibrary`` or a folder) and/or as the frames of a
/// time-lapse movie played at 30 fps — for a greenhouse, a construction site, a night sky.
///
/// The schedule (``TimeLapseSchedule``) puts shot *k* at exactly `origin + k × interval` on
/// the session clock. Each shot is the first frame captured at or after its slot; a slot with
/// no frame in time (the device stalled) is skipped and counted, and the next shot stays on
/// the grid. Daily windows limit shots to hours of the day.
///
/// The output never slows capture: the device thread only decides which frame is a shot;
/// encoding and saving run on the output's own thread, and a shot that arrives while the
/// previous one is still being saved is a missed slot (``TimeLapseMiss/Reason/busy``), not a
/// wait. An unpaced device (a file read as fast as it goes) is the exception: it is held back
/// for every shot, as a movie recording holds it back, so no slot is missed.
///
/// The movie is the movie output's recording: the same encoders and container, written in
/// fragments (one per frame here), so a killed process leaves a movie that plays up to its
/// last shot; its frames are placed by their slot, so a missed slot holds the picture before
/// it one frame longer and the movie stays on the schedule.
///
/// ```swift
/// let timeLapse = CaptureTimeLapseOutput()
/// try session.addOutput(timeLapse)
/// try session.startRunning()
/// let schedule = TimeLapseSchedule(every: MediaTime(value: 10, timescale: 1), alignedToWallClock: true)
/// try timeLapse.start(schedule, photos: .folder(URL(fileURLWithPath: "shots")),
///                     movie: TimeLapseMovie(url: URL(fileURLWithPath: "site.mp4")))
/// for await event in timeLapse.events {
///     if case .shotTaken(let shot) = event { print("slot", shot.slot, shot.photoURL?.lastPathComponent ?? "") }
///     if case .finished = event { break }
/// }
/// ```
public final class CaptureTimeLapseOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// What a time-lapse has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Video frames the schedule looked at.
        public var framesSeen = 0
        /// Shots taken and saved.
        public var shots = 0
        /// Slots inside the daily windows that passed without a shot (late or busy).
        public var missedSlots = 0
    }

    private struct State {
        var run: TimeLapseRun?
        weak var delegate: (any CaptureTimeLapseOutputDelegate)?
        var queue = DispatchQueue(label: "CaptureKit.timeLapseOutput.delegate")
        var waiters: [CheckedContinuation<TimeLapseSummary, Never>] = []
        var last: TimeLapseSummary?
        var maxShotCount = 0
        var maxDuration = MediaTime.invalid
        var photoQuality = 0.9
    }

    private let state = Mutex(State())
    private let streams = Broadcast<TimeLapseEvent>()

    /// How many events a stream keeps for a slow reader.
    static let streamDepth = 64

    /// A time-lapse output, idle until ``start(_:photos:movie:delegate:queue:)``.
    public override init() {
        super.init()
    }

    deinit {
        state.withLock { $0.run }?.cancel()
        streams.finish()
    }

    override var acceptedMediaTypes: Set<MediaType> { [.video] }
    override var encodes: Bool { true }

    // MARK: Settings

    /// The time-lapse ends by itself after this many shots; 0 (the default) for no limit.
    /// Read at the start.
    public var maxShotCount: Int {
        get { state.withLock { $0.maxShotCount } }
        set { state.withLock { $0.maxShotCount = max(0, newValue) } }
    }

    /// The time-lapse ends by itself once its slots up to this long after slot 0 are decided
    /// (10 s every 1 s: 10 slots); `.invalid` (the default) for no limit. Read at the start.
    public var maxDuration: MediaTime {
        get { state.withLock { $0.maxDuration } }
        set { state.withLock { $0.maxDuration = newValue } }
    }

    /// The photos' JPEG quality, 0...1 (0.9 by default), as ``CapturePhotoSettings/quality``.
    /// Read at the start.
    public var photoQuality: Double {
        get { state.withLock { $0.photoQuality } }
        set { state.withLock { $0.photoQuality = newValue } }
    }

    // MARK: Running

    /// Whether a time-lapse is under way.
    public var isRunning: Bool { state.withLock { $0.run != nil } }

    /// The counts of the time-lapse under way (or, when none is, of the last one).
    public var statistics: Statistics {
        let (run, last) = state.withLock { ($0.run, $0.last) }
        return run?.statistics.withLock { $0 } ?? last?.statistics ?? Statistics()
    }

    /// The last finished time-lapse, for code that cannot `await` ``finish()``.
    public var lastSummary: TimeLapseSummary? { state.withLock { $0.last } }

    /// A new stream of what the output does (one ``TimeLapseEvent`` per shot, miss, movie and
    /// end). Every access makes an independent stream; a slow reader misses old events, never
    /// slows capture.
    public var events: AsyncStream<TimeLapseEvent> {
        streams.makeStream(bufferingPolicy: .bufferingNewest(Self.streamDepth))
    }

    /// Starts a time-lapse on `schedule`: photos into `photos` and/or a movie as `movie` says
    /// (at least one of them). It may be called before the session starts; slot 0 is laid by
    /// the first frame that arrives. `delegate` (held weakly) hears every event on `queue`.
    ///
    /// Everything that can be checked up front is: `.invalidState` when the output is in no
    /// session, has no enabled camera connection or a time-lapse is under way,
    /// `.invalidArgument` for a bad schedule, frame rate or quality, or nothing to make,
    /// `.fileError` for a folder that does not exist or cannot be written and for a movie file
    /// that exists or cannot be created, `.unsupportedFormat` for an unknown movie extension.
    /// Later failures (a full disk: `.diskFull`) end the time-lapse; its summary has the error.
    public func start(_ schedule: TimeLapseSchedule, photos: TimeLapsePhotoDestination? = nil, movie: TimeLapseMovie? = nil,
                      delegate: (any CaptureTimeLapseOutputDelegate)? = nil, queue: DispatchQueue? = nil) throws(CaptureError) {
        try schedule.validate()
        guard photos != nil || movie != nil else {
            throw .invalidArgument("a time-lapse needs photos, a movie or both to make")
        }
        guard session != nil else { throw .invalidState("start(_:photos:movie:) needs the output in a session") }
        guard let connection = connection(with: .video), let device = connection.device else {
            throw .invalidState("no camera feeds the time-lapse output: add a camera input to its session")
        }
        guard connection.isEnabled else { throw .invalidState("the time-lapse output's connection is disabled") }
        let settings = state.withLock { $0 }
        guard settings.run == nil else { throw .invalidState("a time-lapse is already under way; stop it first") }
        guard settings.photoQuality.isFinite, (0...1).contains(settings.photoQuality) else {
            throw .invalidArgument("photo quality \(settings.photoQuality) is out of range (0...1)")
        }
        let wallClock = SessionWallClock.current()
        let holdBack = !device.backend.isLive
        let frameDuration = device.activeVideoMinFrameDuration
        var configuration = TimeLapseRun.Configuration(
            schedule: schedule, tolerance: schedule.tolerance(forFrameDuration: frameDuration),
            endSlot: settings.maxDuration.isNumeric && settings.maxDuration > .zero ? schedule.slotCount(in: settings.maxDuration) : nil,
            maxShots: settings.maxShotCount > 0 ? settings.maxShotCount : nil, wallClock: wallClock,
            photos: photos.map { TimeLapsePhotoWriter(destination: $0, quality: min(100, max(1, Int((settings.photoQuality * 100).rounded()))),
                                                      make: device.manufacturer, model: device.localizedName, timeZone: wallClock.timeZone) },
            movie: nil, holdBack: holdBack)
        if let movie { configuration.movie = try Self.recording(movie, connection: connection, device: device) }

        let run = try TimeLapseRun(configuration) { [weak self] event in self?.runEvent(event) }
        let started = state.withLock { state -> Bool in
            guard state.run == nil else { return false }
            state.run = run
            state.delegate = delegate
            if let queue { state.queue = queue }
            return true
        }
        guard started else {
            run.cancel()
            if let url = movie?.url { unlink(url.path) }
            throw .invalidState("a time-lapse is already under way; stop it first")
        }
        run.begin()
    }

    /// The movie recording's configuration for `movie` from `connection`'s camera.
    private static func recording(_ movie: TimeLapseMovie, connection: CaptureConnection,
                                  device: CaptureDevice) throws(CaptureError) -> MovieRecording.Configuration {
        let url = movie.url
        guard (1...240).contains(movie.framesPerSecond) else {
            throw .invalidArgument("a time-lapse movie plays at 1 to 240 frames per second, not \(movie.framesPerSecond)")
        }
        guard let container = MovieMuxer.Container(url: url) else {
            throw CaptureError(.unsupportedFormat, "unknown movie extension '.\(url.pathExtension)': use .mov, .mp4 or .mkv", path: url.path)
        }
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CaptureError(.fileError, "\(url.path) already exists; a time-lapse never overwrites a file", path: url.path)
        }
        let format = device.activeFormat
        guard let pixelFormat = format.pixelFormat else { throw .invalidState("\(device.localizedName) does not deliver video frames") }
        let frame = MediaTime(value: 1, timescale: movie.framesPerSecond)
        var settings = movie.settings
        if settings.keyframeInterval == nil { settings.keyframeInterval = MediaTime(value: 1, timescale: 1) }
        let video = MovieRecording.VideoTrack(width: format.width, height: format.height, sourceFormat: pixelFormat, frameDuration: frame,
                                              rotation: connection.videoRotationAngle, mirrored: connection.isVideoMirrored, settings: settings)
        // A fragment per frame (the muxer cuts one every eighth of the interval): a crash loses
        // the shot being written, not minutes of them. The producer is the output's worker,
        // which may wait; the camera never does.
        return MovieRecording.Configuration(url: url, container: container, video: video, audio: nil, fragmentInterval: frame * 8,
                                            maxDuration: nil, maxFileSize: nil, minFreeDiskSpace: nil, metadata: MovieMetadata(),
                                            holdBack: true, zeroLatency: true)
    }

    /// Ends the time-lapse after the shots already taken; the movie is finished and the
    /// delegate hears `didFinish`. Does nothing when none is under way.
    public func stop() {
        state.withLock { $0.run }?.stop()
    }

    /// Ends the time-lapse and returns its summary once the movie is closed; when none is
    /// under way, returns the last one's (or, without one, a summary with `.invalidState`).
    public func finish() async -> TimeLapseSummary {
        await withCheckedContinuation { continuation in
            let run = state.withLock { state -> TimeLapseRun? in
                if state.run != nil { state.waiters.append(continuation) }
                return state.run
            }
            if let run {
                run.stop()
            } else {
                continuation.resume(returning: state.withLock { $0.last } ?? TimeLapseSummary(
                    statistics: Statistics(), movie: nil, error: .invalidState("no time-lapse was taken")))
            }
        }
    }

    /// Sets who hears the events and on which queue, for the time-lapse under way and the next.
    public func setDelegate(_ delegate: (any CaptureTimeLapseOutputDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            if let queue { $0.queue = queue }
        }
    }

    /// The delegate, if one is set.
    public var delegate: (any CaptureTimeLapseOutputDelegate)? { state.withLock { $0.delegate } }

    // MARK: Session side

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        state.withLock { $0.run }?.receive(sample)
    }

    override func sessionDidStopRunning() {
        var error = CaptureError(.sessionStopped, "the time-lapse ended because the session stopped running")
        error.recordingSuccessfullyFinished = true
        state.withLock { $0.run }?.stop(error)
    }

    private func runEvent(_ event: TimeLapseRun.Event) {
        let (delegate, queue) = state.withLock { ($0.delegate, $0.queue) }
        switch event {
        case .started(let origin):
            streams.yield(.started(origin: origin))
            queue.async { delegate?.timeLapseOutput(self, didStartAt: origin) }
        case .shot(let shot):
            streams.yield(.shotTaken(shot))
            queue.async { delegate?.timeLapseOutput(self, didTake: shot) }
        case .missed(let miss):
            streams.yield(.slotsMissed(miss))
            queue.async { delegate?.timeLapseOutput(self, didMiss: miss) }
        case .movieFinished(let movie):
            streams.yield(.movieFinished(movie))
            queue.async { delegate?.timeLapseOutput(self, didFinishMovie: movie) }
        case .finished(let summary):
            let waiters = state.withLock { state -> [CheckedContinuation<TimeLapseSummary, Never>] in
                defer {
                    state.waiters.removeAll()
                    state.run = nil
                    state.last = summary
                }
                return state.waiters
            }
            streams.yield(.finished(summary))
            queue.async { delegate?.timeLapseOutput(self, didFinish: summary) }
            for waiter in waiters { waiter.resume(returning: summary) }
        }
    }
}
