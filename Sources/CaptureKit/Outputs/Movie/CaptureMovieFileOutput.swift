import Dispatch
import Foundation
import Synchronization

/// Records the session's video and audio into a movie file (`AVCaptureMovieFileOutput`):
/// QuickTime `.mov` (the default), `.mp4` or Matroska `.mkv`, H.264/HEVC/MJPEG video and
/// AAC/PCM/Opus audio, encoded through FFmpeg off the capture threads.
///
/// With a ``movieFragmentInterval`` (1 s by default; AVFoundation's is 10 s) the file is
/// written in fragments: a process killed mid-recording leaves a file that plays up to the
/// last fragment. A recording that ends normally is turned into an ordinary, seekable file.
/// Unlike iOS, a movie output works alongside video and audio data outputs on one session.
///
/// ```swift
/// let movie = CaptureMovieFileOutput()
/// try session.addOutput(movie)
/// try session.startRunning()
/// try movie.startRecording(to: URL(fileURLWithPath: "clip.mov"))
/// try await Task.sleep(for: .seconds(5))
/// let clip = await movie.finishRecording()
/// print(clip.url, clip.duration.seconds)
/// ```
public final class CaptureMovieFileOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct State {
        var recording: MovieRecording?
        var url: URL?
        var delegate: (any CaptureFileOutputRecordingDelegate)?
        var queue = DispatchQueue(label: "CaptureKit.movieFileOutput.delegate")
        var connections: [CaptureConnection] = []
        var settings: [ObjectIdentifier: MovieOutputSettings] = [:]
        var waiters: [CheckedContinuation<RecordedMovie, Never>] = []
        var limits = Limits()
        var interruptionBehavior = InterruptionBehavior.finishRecording
        /// The recording's files, when it was started (and may split at a loss).
        var series: MovieRecordingSeries?
    }

    /// What a recording does when a device of the session goes away (the session is
    /// interrupted).
    public enum InterruptionBehavior: Sendable, Hashable {
        /// Finish the file at the loss (AVFoundation's behaviour): the delegate hears
        /// `didFinishRecording` with `.deviceDisconnected`, and the file is complete.
        case finishRecording
        /// Keep recording into the same file: when the camera is away the picture holds its
        /// last frame and the sound goes on; when the microphone is away its gap is silence.
        /// Recording continues when the device returns (see
        /// ``CaptureSession/resumesWhenDevicesReturn``); the camera's gaps are listed in
        /// ``RecordedMovie/videoGaps`` and the frames missed counted in its drops.
        case continueRecording
        /// Finish the file at the loss (as `.finishRecording`) and start the next one when the
        /// session's devices are back (its `.interruptionEnded`, see
        /// ``CaptureSession/resumesWhenDevicesReturn``): `clip.mov`, then `clip-2.mov`,
        /// `clip-3.mov`… (the next number no file has), with the same settings and delegate,
        /// which hears `didFinishRecording` (with `.deviceDisconnected`, the file complete) for
        /// each file and `didStartRecording` for the next. Meanwhile ``isRecording`` stays true;
        /// ``stopRecording()`` or ``finishRecording()`` end the series (the latter returns the
        /// last file).
        case startNewRecording
    }

    /// What a recording does when a device goes away; `.finishRecording` by default. Read when
    /// the interruption happens.
    public var interruptionBehavior: InterruptionBehavior {
        get { state.withLock { $0.interruptionBehavior } }
        set { state.withLock { $0.interruptionBehavior = newValue } }
    }

    private struct Limits {
        var maxDuration = MediaTime.invalid
        var maxFileSize: Int64 = 0
        var minFreeDiskSpace: Int64 = 0
        var fragmentInterval = MediaTime(value: 1, timescale: 1)
        var metadata = MovieMetadata()
    }

    private let state = Mutex(State())
    private let lastMovie = Mutex<RecordedMovie?>(nil)

    private let segmentStreams = Broadcast<MovieSegmentEvent>()

    /// A movie file output with default settings (H.264 + AAC, 1 s fragments).
    public override init() {
        super.init()
    }

    override var acceptedMediaTypes: Set<MediaType> { [.video, .audio] }
    override var encodes: Bool { true }

    // MARK: Settings

    /// The longest recording; `.invalid` (the default) for no limit. Reaching it ends the
    /// recording with a `.maximumDurationReached` error whose file is complete.
    public var maxRecordedDuration: MediaTime {
        get { state.withLock { $0.limits.maxDuration } }
        set { state.withLock { $0.limits.maxDuration = newValue } }
    }

    /// The largest file in bytes; 0 (the default) for no limit.
    public var maxRecordedFileSize: Int64 {
        get { state.withLock { $0.limits.maxFileSize } }
        set { state.withLock { $0.limits.maxFileSize = max(0, newValue) } }
    }

    /// Recording stops (with `.diskFull`, file complete) when the disk's free space falls below
    /// this many bytes; 0 (the default) for no limit.
    public var minFreeDiskSpaceLimit: Int64 {
        get { state.withLock { $0.limits.minFreeDiskSpace } }
        set { state.withLock { $0.limits.minFreeDiskSpace = max(0, newValue) } }
    }

    /// How often a self-contained fragment is written (1 s by default). `.invalid` writes an
    /// ordinary file, which a crash leaves unreadable.
    public var movieFragmentInterval: MediaTime {
        get { state.withLock { $0.limits.fragmentInterval } }
        set { state.withLock { $0.limits.fragmentInterval = newValue } }
    }

    /// Title, creation date, location and comment written into the next recording.
    public var metadata: MovieMetadata {
        get { state.withLock { $0.limits.metadata } }
        set { state.withLock { $0.limits.metadata = newValue } }
    }

    /// The encoding of one connection (`outputSettings(for:)`): by default H.264 and AAC, or,
    /// for a network camera that sends H.264 or HEVC, its own codec, recorded as it came
    /// (``MovieOutputSettings/passThrough``).
    public func outputSettings(for connection: CaptureConnection) -> MovieOutputSettings {
        state.withLock { $0.settings[ObjectIdentifier(connection)] } ?? Self.defaultSettings(for: connection)
    }

    /// Whether the next recording stores the video of `connection` as the camera coded it —
    /// no decode, no encode: a network camera that sends the codec of the connection's
    /// settings, with ``MovieOutputSettings/passThrough`` on.
    public func passesVideoThrough(for connection: CaptureConnection) -> Bool {
        guard connection.mediaType == .video, let device = connection.device else { return false }
        return MovieRecording.Tracks.passThrough(device, outputSettings(for: connection)) != nil
    }

    /// H.264 and AAC, or the codec a network camera sends when it is H.264 or HEVC: its
    /// video is then recorded as it came.
    static func defaultSettings(for connection: CaptureConnection) -> MovieOutputSettings {
        var settings = MovieOutputSettings()
        if connection.mediaType == .video, let codec = connection.device?.backend.codedVideo?.videoCodec, codec != .mjpeg {
            settings.videoCodec = codec
        }
        return settings
    }

    /// Sets the encoding of one connection for the next recording (`setOutputSettings(_:for:)`).
    public func setOutputSettings(_ settings: MovieOutputSettings, for connection: CaptureConnection) {
        state.withLock { $0.settings[ObjectIdentifier(connection)] = settings }
    }

    /// Every video codec this machine's FFmpeg can encode, whether or not a live recording
    /// keeps up with it (HEVC through libx265 included). To choose a codec for recording from a
    /// camera, use ``availableVideoCodecTypes``; to record a file device (which waits for the
    /// encoder) any of these will do. What encodes each: ``MovieOutputSettings/VideoCodec/info``.
    public var availableVideoCodecs: [MovieOutputSettings.VideoCodec] {
        MovieOutputSettings.VideoCodec.allCases.filter(\.info.isAvailable)
    }

    /// The video codecs a live recording at the session's format keeps up with, in order of
    /// preference — the first is the default (`availableVideoCodecTypes`). AVFoundation lists
    /// hardware encoders; every encoder here is software (``VideoCodecInfo``), so the list holds
    /// those no dearer than H.264 at its live preset: `[.h264, .mjpeg]`. HEVC (libx265, about
    /// four times H.264's CPU per frame) is in ``availableVideoCodecs`` but not here, and would
    /// be only with a hardware encoder. Judged for the formats the presets give up to 1920×1080
    /// at 30 fps on a 2-core machine; at larger formats a slow machine may still fall behind,
    /// and the recording then drops frames and counts them (``droppedSampleCount``).
    public var availableVideoCodecTypes: [MovieOutputSettings.VideoCodec] {
        availableVideoCodecs.filter(\.info.isSuitedToRealTimeRecording)
    }

    // MARK: Recording

    /// Whether a recording is under way (`isRecording`), including one that waits for its
    /// devices to return to start its next file (``InterruptionBehavior/startNewRecording``).
    public var isRecording: Bool { state.withLock { $0.recording != nil || $0.series?.isWaiting == true } }

    /// Whether the recording is paused.
    public var isRecordingPaused: Bool { state.withLock { $0.recording?.progress.withLock { $0.paused } ?? false } }

    /// The file being recorded, or nil.
    public var outputFileURL: URL? { state.withLock { $0.url } }

    /// How much has been recorded (pauses excluded).
    public var recordedDuration: MediaTime { state.withLock { $0.recording?.progress.withLock { $0.duration } ?? .zero } }

    /// Bytes written so far.
    public var recordedFileSize: Int64 { state.withLock { $0.recording?.progress.withLock { $0.fileSize } ?? 0 } }

    /// Video frames written so far.
    public var recordedVideoFrameCount: Int { state.withLock { $0.recording?.progress.withLock { $0.videoFrames } ?? 0 } }

    /// The last finished recording, for code that cannot `await` ``finishRecording()``.
    public var lastRecordedMovie: RecordedMovie? { lastMovie.withLock { $0 } }

    /// Samples of the recording missing so far: dropped because the encoder was behind (its
    /// queue, bounded at about 1.5 s of video, was full, or a frame waited too long), or skipped
    /// by the device. Only samples inside the recording count (from its first frame to its
    /// stop or maximum duration, outside pauses), so the file's frames and the video drops add
    /// up to exactly the frames the camera produced in that time.
    public var droppedSampleCount: Int { state.withLock { $0.recording?.progress.withLock { $0.dropped } ?? 0 } }

    /// Starts recording to `url` (`startRecording(to:recordingDelegate:)`); the container
    /// follows the extension (.mov, .mp4, .mkv). Unlike AVFoundation, it may be called before
    /// the session starts: the recording then begins with the session's first frame (the way
    /// to record an unpaced file device from its start). Everything that can be checked up
    /// front is: `.invalidState` when the output is in no session or a recording is under way,
    /// `.fileError` when the file exists or cannot be created, `.unsupportedFormat` for an
    /// unknown extension or a codec the container cannot hold. Later failures arrive at the
    /// delegate's `didFinishRecording` (and ``finishRecording()``).
    public func startRecording(to url: URL, recordingDelegate delegate: (any CaptureFileOutputRecordingDelegate)? = nil,
                               queue: DispatchQueue? = nil) throws(CaptureError) {
        let waiting = state.withLock { $0.series?.isWaiting == true }
        guard !waiting else { throw .invalidState("a recording waits for its devices to return; stop it first") }
        let series = MovieRecordingSeries(first: url, delegate: delegate, queue: queue ?? state.withLock { $0.queue })
        try begin(url, series: series)
    }

    /// Starts recording to `url` with the first frame captured at or after `time` (on the
    /// session clock, ``MediaTime/now``): what starts several cameras' recordings on the
    /// same frame time — each file begins with its camera's first frame from `time` on, so they
    /// start within one frame interval of each other. The delegate's `didStartRecordingTo`
    /// gives each file's exact start. Throws what ``startRecording(to:recordingDelegate:queue:)``
    /// throws, and `.invalidArgument` for a time that is not numeric.
    ///
    /// ```swift
    /// func startTogether(_ movies: [(CaptureMovieFileOutput, URL)]) throws {
    ///     let now = MediaTime.now
    ///     for (movie, url) in movies { try movie.startRecording(to: url, from: now) }
    /// }
    /// ```
    public func startRecording(to url: URL, from time: MediaTime, recordingDelegate delegate: (any CaptureFileOutputRecordingDelegate)? = nil,
                               queue: DispatchQueue? = nil) throws(CaptureError) {
        guard time.isNumeric else { throw .invalidArgument("a recording's start time must be numeric, not \(time)") }
        let waiting = state.withLock { $0.series?.isWaiting == true }
        guard !waiting else { throw .invalidState("a recording waits for its devices to return; stop it first") }
        let series = MovieRecordingSeries(first: url, delegate: delegate, queue: queue ?? state.withLock { $0.queue })
        try begin(url, series: series, startsAt: time)
    }

    /// Starts a recording split into files of ``MovieSegmentation/duration`` in `folder` (an
    /// existing, writable folder): `segment-YYYYMMDD-HHMMSS.mp4`, … each starting on a keyframe at
    /// a boundary of the wall clock (every whole minute by default), one after the other with no
    /// frame and no sample lost or doubled between them, each playable alone, written in
    /// fragments while it grows (a crash leaves every earlier segment whole and the current one
    /// playable to its last fragment) and indexed in `segments.jsonl` once finished. The
    /// retention limits delete the oldest whole segments. ``segmentEvents`` tells of each
    /// segment; the delegate hears the recording as one, `didFinishRecording` with `folder`
    /// once the last segment is complete. A camera's H.264/HEVC stored as it came is cut at its
    /// first keyframe after each boundary.
    ///
    /// ```swift
    /// func recordADay(with movie: CaptureMovieFileOutput) throws {
    ///     var segments = MovieSegmentation()
    ///     segments.maximumAge = .seconds(24 * 3600)
    ///     try movie.startRecording(toFolder: URL(fileURLWithPath: "/var/lib/dashcam"), segmentation: segments)
    /// }
    /// ```
    ///
    /// Throws what ``startRecording(to:recordingDelegate:queue:)`` throws, `.fileError` for a
    /// folder that is missing or not writable, `.invalidArgument` for a duration under a second,
    /// `.unsupportedFormat` for an extension other than mp4, mov or mkv.
    public func startRecording(toFolder folder: URL, segmentation: MovieSegmentation = MovieSegmentation(),
                               recordingDelegate delegate: (any CaptureFileOutputRecordingDelegate)? = nil,
                               queue: DispatchQueue? = nil) throws(CaptureError) {
        let waiting = state.withLock { $0.series?.isWaiting == true }
        guard !waiting else { throw .invalidState("a recording waits for its devices to return; stop it first") }
        var series = MovieRecordingSeries(first: folder, delegate: delegate, queue: queue ?? state.withLock { $0.queue })
        series.segmentation = segmentation
        try begin(folder, series: series)
    }

    /// A new stream of a segmented recording's events: each segment started, finished, failed,
    /// or deleted by retention. Every access makes an independent stream.
    public var segmentEvents: AsyncStream<MovieSegmentEvent> { segmentStreams.makeStream(bufferingPolicy: .bufferingNewest(256)) }

    /// Starts recording one file of `series` (or, segmented, one run of segments).
    private func begin(_ url: URL, series: MovieRecordingSeries, startsAt: MediaTime? = nil) throws(CaptureError) {
        guard session != nil else {
            throw .invalidState("startRecording(to:) needs the output in a session")
        }
        let segments = try series.segmentation.map { (segmentation) throws(CaptureError) in try segmentFolder(url, segmentation) }
        let named = segments.map { URL(fileURLWithPath: "x.\($0.segmentation.fileExtension)") } ?? url
        guard let container = MovieMuxer.Container(url: named) else {
            throw CaptureError(.unsupportedFormat, "unknown movie extension '.\(named.pathExtension)': use .mov, .mp4 or .mkv", path: url.path)
        }
        guard segments != nil || !FileManager.default.fileExists(atPath: url.path) else {
            throw CaptureError(.fileError, "\(url.path) already exists; a recording never overwrites a file", path: url.path)
        }
        let connections = self.connections.filter(\.isEnabled)
        let (limits, settings) = state.withLock { ($0.limits, $0.settings) }
        let tracks = MovieRecording.Tracks(connections, passThrough: true) { settings[ObjectIdentifier($0)] ?? Self.defaultSettings(for: $0) }
        guard tracks.video != nil || tracks.audio != nil else {
            throw .invalidState("the movie output has no enabled video or audio connection")
        }
        let configuration = MovieRecording.Configuration(
            url: url, container: container, video: tracks.video, audio: tracks.audio,
            // Segments are fragmented by their sink, each of them; the file size limit is a file's.
            fragmentInterval: segments == nil && limits.fragmentInterval.isNumeric && limits.fragmentInterval > .zero ? limits.fragmentInterval : nil,
            maxDuration: limits.maxDuration.isNumeric && limits.maxDuration > .zero ? limits.maxDuration : nil,
            maxFileSize: segments == nil && limits.maxFileSize > 0 ? limits.maxFileSize : nil,
            minFreeDiskSpace: limits.minFreeDiskSpace > 0 ? limits.minFreeDiskSpace : nil,
            metadata: limits.metadata, holdBack: tracks.holdBack, startsAt: startsAt)

        let alreadyRecording = state.withLock { $0.recording != nil }
        guard !alreadyRecording else { throw .invalidState("a recording is already under way; stop it first") }
        // Opening encoders takes a while: done outside the lock the device threads read.
        let sink = segments.map { folder in
            SegmentingSink(folder: folder, container: container, frameDuration: tracks.video?.frameDuration ?? .zero) { [segmentStreams] event in
                segmentStreams.yield(event)
            }
        }
        let recording = try MovieRecording(configuration, sink: sink) { [weak self, weak sink] event in
            if case .started(let origin) = event { sink?.setOrigin(origin) }
            self?.recordingEvent(event)
        }
        try state.withLock { (state) throws(CaptureError) in
            guard state.recording == nil else {
                recording.cancel()
                throw .invalidState("a recording is already under way; stop it first")
            }
            state.recording = recording
            state.url = url
            state.delegate = series.delegate
            state.queue = series.queue
            state.series = series
            state.connections = connections
        }
        recording.begin()
    }

    /// Ends the recording (`stopRecording()`); the delegate hears `didFinishRecording` once the
    /// file is complete. Does nothing when not recording.
    public func stopRecording() {
        state.withLock { state -> MovieRecording? in
            state.series = nil
            return state.recording
        }?.queue.push(.stop(at: MonotonicClock.now(), reason: .requested))
    }

    /// Ends the recording and returns the finished movie once the file is complete; when no
    /// recording is under way, returns the last one.
    public func finishRecording() async -> RecordedMovie {
        await withCheckedContinuation { continuation in
            let recording = state.withLock { state -> MovieRecording? in
                state.series = nil
                if state.recording != nil { state.waiters.append(continuation) }
                return state.recording
            }
            if let recording {
                recording.queue.push(.stop(at: MonotonicClock.now(), reason: .requested))
            } else {
                continuation.resume(returning: lastMovie.withLock { $0 } ?? RecordedMovie(
                    url: URL(fileURLWithPath: "/dev/null"), duration: .zero, fileSize: 0, videoFrameCount: 0, droppedSampleCount: 0,
                    videoGaps: [], error: .invalidState("no recording was made")))
            }
        }
    }

    /// Pauses at the next frame: nothing is recorded until ``resumeRecording()``, and the file
    /// has no gap.
    public func pauseRecording() {
        state.withLock { $0.recording }?.queue.push(.pause(at: MonotonicClock.now()))
    }

    /// Resumes a paused recording at the next frame.
    public func resumeRecording() {
        state.withLock { $0.recording }?.queue.push(.resume(at: MonotonicClock.now()))
    }

    // MARK: Session side

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        state.withLock { $0.recording }?.offer(sample)
    }

    /// Only a recording that encodes its video looks at pixels: one that stores the camera's
    /// packets does not, nor does an output that is not recording.
    override func wantsPixels(from connection: CaptureConnection) -> Bool {
        state.withLock { $0.recording }.map { !$0.copiesVideo } ?? false
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        // Frames the device itself skipped are missing from the movie too: counted, not hidden
        // (by the recording, in their place, so only those inside the recording count).
        state.withLock { $0.recording }?.deviceSkipped(count: count, video: connection.mediaType == .video)
    }

    override func sessionDidStopRunning() {
        state.withLock { state -> MovieRecording? in
            state.series = nil   // a series waiting for its devices ends with the session
            return state.recording
        }?.queue.push(.stop(at: MonotonicClock.now(), reason: .sessionStopped))
    }

    override func sessionWasInterrupted(_ reason: CaptureSession.InterruptionReason) {
        let (recording, behavior) = state.withLock { ($0.recording, $0.interruptionBehavior) }
        switch behavior {
        case .finishRecording:
            recording?.queue.push(.stop(at: MonotonicClock.now(), reason: .deviceLost(reason)))
        case .startNewRecording:
            let stopping = state.withLock { state -> MovieRecording? in
                guard let recording = state.recording, state.series != nil else { return nil }
                state.series?.isWaiting = true
                state.series?.devicesReturned = false
                return recording
            }
            stopping?.queue.push(.stop(at: MonotonicClock.now(), reason: .deviceLost(reason)))
        case .continueRecording:
            let video: Bool
            switch reason {
            case .videoDeviceNotAvailable: video = true
            case .audioDeviceNotAvailable: video = false
            }
            recording?.queue.push(.deviceLost(video: video))
        }
    }

    override func sessionInterruptionEnded() {
        // The next file starts now, or once the last one is finished.
        let start = state.withLock { state -> Bool in
            guard state.series?.isWaiting == true else { return false }
            state.series?.devicesReturned = true
            return state.recording == nil
        }
        if start { startNextFile() }
    }

    /// Starts the next file of a series whose devices are back; a failure is the delegate's
    /// `didFinishRecording` for that file, and ends the series.
    private func startNextFile() {
        guard var series = state.withLock({ state -> MovieRecordingSeries? in
            defer { state.series = nil }
            return state.series
        }) else { return }
        let url = series.nextURL()
        series.isWaiting = false
        series.devicesReturned = false
        do throws(CaptureError) {
            try begin(url, series: series)
        } catch {
            let connections = self.connections.filter(\.isEnabled)
            let delegate = series.delegate
            series.queue.async { delegate?.fileOutput(self, didFinishRecordingTo: url, from: connections, error: error) }
        }
    }

    /// The folder of a segmented recording, checked.
    private func segmentFolder(_ url: URL, _ segmentation: MovieSegmentation) throws(CaptureError) -> SegmentFolder {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue, access(url.path, W_OK) == 0 else {
            throw CaptureError(.fileError, "\(url.path) is not a folder segments can be written to", path: url.path)
        }
        guard segmentation.duration.isNumeric, segmentation.duration >= MediaTime(value: 1, timescale: 1) else {
            throw .invalidArgument("a segment of \(segmentation.duration.seconds) s is too short (1 s at least)")
        }
        guard !segmentation.namePrefix.isEmpty, !segmentation.namePrefix.contains("/") else {
            throw .invalidArgument("'\(segmentation.namePrefix)' cannot start a segment's file name")
        }
        return SegmentFolder(url: url, segmentation: segmentation)
    }

    private func recordingEvent(_ event: MovieRecording.Event) {
        let (delegate, queue, url, connections, recording) = state.withLock {
            ($0.delegate, $0.queue, $0.url ?? URL(fileURLWithPath: "/"), $0.connections, $0.recording)
        }
        switch event {
        case .started(let time):
            queue.async { delegate?.fileOutput(self, didStartRecordingTo: url, startPTS: time, from: connections) }
        case .paused:
            queue.async { delegate?.fileOutput(self, didPauseRecordingTo: url, from: connections) }
        case .resumed:
            queue.async { delegate?.fileOutput(self, didResumeRecordingTo: url, from: connections) }
        case .willFinish:
            queue.async { delegate?.fileOutput(self, willFinishRecordingTo: url, from: connections, error: nil) }
        case .finished(let error):
            let progress = recording?.progress.withLock { $0 } ?? MovieRecording.Progress()
            let movie = RecordedMovie(url: url, duration: progress.duration, fileSize: progress.fileSize,
                                      videoFrameCount: progress.videoFrames, droppedSampleCount: progress.dropped,
                                      videoGaps: progress.videoGaps, error: error)
            lastMovie.withLock { $0 = movie }
            let (waiters, startNext) = state.withLock { state -> ([CheckedContinuation<RecordedMovie, Never>], Bool) in
                defer {
                    state.waiters.removeAll()
                    state.recording = nil
                    state.delegate = nil
                    if state.series?.isWaiting != true { state.series = nil }
                }
                return (state.waiters, state.series?.isWaiting == true && state.series?.devicesReturned == true)
            }
            queue.async { delegate?.fileOutput(self, didFinishRecordingTo: url, from: connections, error: error) }
            for waiter in waiters { waiter.resume(returning: movie) }
            if startNext { startNextFile() }
        }
    }

    deinit {
        state.withLock { $0.recording }?.cancel()
    }
}
