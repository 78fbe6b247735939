import Dispatch
import Foundation
import Synchronization

/// Publishes the session's video and sound live to media servers — RTMP(S), SRT, RTSP — or as
/// HLS files, beside the movie and data outputs. One encode (H.264 at a constant bit rate with
/// a one-second buffer, no B-frames, a keyframe every ``keyframeInterval``; AAC) feeds every
/// destination and the output's own recording, so recording and streaming never encode a
/// picture twice; a destination that wants another bit rate belongs on a second output.
///
/// The network is hostile, capture is not: each destination sends on a thread of its own and
/// holds at most ``maximumDelay`` of media. A slow link loses whole groups of pictures (counted
/// in ``statistics`` and reported as ``StreamEvent/dropped(_:frames:)``), never the camera's
/// frames or the recording's; a server that is down, goes away or stalls is retried with a
/// capped exponential backoff (``setReconnection(initialDelay:maximumDelay:maximumAttempts:)``),
/// and the stream resumes at a keyframe when it returns. Stream keys, passphrases and URL
/// passwords are shown as `***` everywhere (``StreamDestination``).
///
/// ```swift
/// let stream = CaptureStreamOutput()
/// try stream.setDestinations([StreamDestination("rtmp://127.0.0.1/live/doorbell")])
/// try stream.setRecordingURL(URL(fileURLWithPath: "/var/lib/doorbell/today.mov"))
/// try session.addOutput(stream)
/// try await session.start()
/// for await event in stream.events { print(event) }
/// ```
public final class CaptureStreamOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct Settings {
        var destinations: [StreamDestination] = []
        var videoBitRate = 2_500_000
        var audioBitRate = 128_000
        var keyframeInterval = MediaTime(value: 2, timescale: 1)
        var encoderPreset = MovieOutputSettings.EncoderPreset.veryfast
        var maximumDelay = MediaTime(value: 2, timescale: 1)
        var reconnection = StreamPublisher.Reconnection(initialDelay: MediaTime(value: 1, timescale: 10),
                                                        maximumDelay: MediaTime(value: 1, timescale: 2), maximumAttempts: nil)
        var recordingURL: URL?
        var adaptsBitRate = false
    }

    private struct State {
        /// The encode while the session runs.
        var recording: MovieRecording?
        /// The last run's encode and destinations: kept after it ends, for the final figures.
        var lastRecording: MovieRecording?
        var sink: PublishingSink?
        /// This run could not start: not tried again (and reported again) with every sample.
        var failed = false
        weak var delegate: (any CaptureStreamOutputDelegate)?
        var queue = DispatchQueue(label: "CaptureKit.streamOutput.delegate")
    }

    private let settings = Mutex(Settings())
    private let state = Mutex(State())
    private let starting = Mutex(())
    private let streams = Broadcast<StreamEvent>()

    /// A stream output with no destination yet: set them before the session runs.
    public override init() {
        super.init()
    }

    deinit {
        state.withLock { $0.recording }?.cancel()
        streams.finish()
    }

    override var acceptedMediaTypes: Set<MediaType> { [.video, .audio] }
    override var encodes: Bool { true }

    // MARK: Settings

    /// Where the output publishes.
    public var destinations: [StreamDestination] { settings.withLock { $0.destinations } }

    /// Sets ``destinations`` (read when the session starts); `.invalidArgument` for none, or
    /// the same one twice.
    public func setDestinations(_ destinations: [StreamDestination]) throws(CaptureError) {
        guard !destinations.isEmpty else { throw .invalidArgument("a stream output needs at least one destination") }
        guard Set(destinations.map(\.address)).count == destinations.count else {
            throw .invalidArgument("a destination appears twice")
        }
        settings.withLock { $0.destinations = destinations }
    }

    /// The video bit rate in bits per second (2.5 Mbit/s by default).
    public var videoBitRate: Int { settings.withLock { $0.videoBitRate } }

    /// Sets ``videoBitRate``: while streaming, it takes effect at a keyframe made for it (the
    /// next frame), without reconnecting. `.invalidArgument` below 50 kbit/s.
    public func setVideoBitRate(_ bits: Int) throws(CaptureError) {
        guard bits >= 50_000 else { throw .invalidArgument("a video bit rate of \(bits) bit/s is too low (50 000 at least)") }
        settings.withLock { $0.videoBitRate = bits }
        let (recording, sink) = state.withLock { ($0.recording, $0.sink) }
        sink?.setConfiguredBitRate(bits)
        recording?.setVideoBitRate(bits)
    }

    /// Whether the bit rate follows the network (false by default): while a destination's
    /// queue is half full, every second the encode steps down by a third (to a quarter of
    /// ``videoBitRate`` at the lowest); after 5 s with every queue near empty it steps back up
    /// by a quarter, to ``videoBitRate`` at most. Each step starts at a keyframe and is
    /// reported (``StreamEvent/bitRateChanged(_:)``). The one encode is shared, so the
    /// recording follows too.
    public var adaptsBitRate: Bool {
        get { settings.withLock { $0.adaptsBitRate } }
        set { settings.withLock { $0.adaptsBitRate = newValue } }
    }

    /// The AAC bit rate in bits per second (128 kbit/s by default).
    public var audioBitRate: Int { settings.withLock { $0.audioBitRate } }

    /// The longest time between keyframes (2 s by default): where a viewer can join, where a
    /// reconnected stream resumes, and an HLS segment's length.
    public var keyframeInterval: MediaTime { settings.withLock { $0.keyframeInterval } }

    /// The x264 preset (``MovieOutputSettings/EncoderPreset/veryfast`` by default).
    public var encoderPreset: MovieOutputSettings.EncoderPreset { settings.withLock { $0.encoderPreset } }

    /// Sets ``audioBitRate``, ``keyframeInterval`` and ``encoderPreset`` (read when the session
    /// starts). `.invalidArgument` for an audio bit rate below 16 kbit/s or a keyframe interval
    /// outside 0.1…30 s.
    public func setEncoding(audioBitRate: Int = 128_000, keyframeInterval: MediaTime = MediaTime(value: 2, timescale: 1),
                            encoderPreset: MovieOutputSettings.EncoderPreset = .veryfast) throws(CaptureError) {
        guard audioBitRate >= 16_000 else { throw .invalidArgument("an audio bit rate of \(audioBitRate) bit/s is too low") }
        guard keyframeInterval.isNumeric, keyframeInterval.seconds >= 0.1, keyframeInterval.seconds <= 30 else {
            throw .invalidArgument("a keyframe interval of \(keyframeInterval) is outside 0.1…30 s")
        }
        settings.withLock {
            $0.audioBitRate = audioBitRate
            $0.keyframeInterval = keyframeInterval
            $0.encoderPreset = encoderPreset
        }
    }

    /// The most media a destination holds while its link is slower than the stream (2 s by
    /// default): past it, its oldest group of pictures is dropped.
    public var maximumDelay: MediaTime { settings.withLock { $0.maximumDelay } }

    /// Sets ``maximumDelay``; `.invalidArgument` outside 0.1…60 s.
    public func setMaximumDelay(_ delay: MediaTime) throws(CaptureError) {
        guard delay.isNumeric, delay.seconds >= 0.1, delay.seconds <= 60 else { throw .invalidArgument("a maximum delay of \(delay) is outside 0.1…60 s") }
        settings.withLock { $0.maximumDelay = delay }
    }

    /// Sets how a destination retries after a failed or broken connection: the first retry
    /// after `initialDelay` (0.1 s by default), each next one after twice as long, at most
    /// `maximumDelay` (0.5 s by default: a server that comes back is reached within half a
    /// second); after `maximumAttempts` failures in a row (nil, the default: never) the
    /// destination ends with the last error. `.invalidArgument` for delays that are not
    /// positive times with the initial one at most the maximum, or no attempt at all.
    public func setReconnection(initialDelay: MediaTime, maximumDelay: MediaTime, maximumAttempts: Int?) throws(CaptureError) {
        guard initialDelay.isNumeric, maximumDelay.isNumeric, initialDelay > .zero, initialDelay <= maximumDelay else {
            throw .invalidArgument("reconnection delays must be positive, the initial one at most the maximum")
        }
        if let maximumAttempts, maximumAttempts < 0 { throw .invalidArgument("a negative number of reconnection attempts") }
        settings.withLock { $0.reconnection = .init(initialDelay: initialDelay, maximumDelay: maximumDelay, maximumAttempts: maximumAttempts) }
    }

    /// A movie file that records what is streamed, from the same encode; none by default.
    public var recordingURL: URL? { settings.withLock { $0.recordingURL } }

    /// Sets ``recordingURL`` (a `.mov`, `.mp4` or `.mkv` file; nil for none), read when the
    /// session starts: the recording lasts as long as the stream. It is written in fragments
    /// (a crash leaves it playable) and made an ordinary file at the end; it has every frame
    /// whatever the network does. `.invalidArgument` for another extension, `.fileError` for
    /// a folder that cannot be written.
    public func setRecordingURL(_ url: URL?) throws(CaptureError) {
        if let url { try Self.checkRecordable(url) }
        settings.withLock { $0.recordingURL = url }
    }

    /// Starts recording what is streamed into `url` (a `.mov`, `.mp4` or `.mkv` file) while
    /// the stream goes on, from the same encode: the file starts at the encode's next keyframe
    /// (within ``keyframeInterval``), at time zero, with ``StreamEvent/recordingStarted(_:)``.
    /// It ends with ``stopRecording()``, the session's end or a device's loss (the stream
    /// starts afresh when the device is back, the recording does not), reported as
    /// ``StreamEvent/recordingFinished(_:error:)`` once the file is an ordinary movie — made
    /// one away from the encode, so the stream never waits for it. Written in fragments (a
    /// crash leaves it playable); independent of the recording of the whole run
    /// (``setRecordingURL(_:)``). `.invalidArgument` for another extension, `.fileError` for a
    /// folder that cannot be written, `.invalidState` when the output is not streaming or
    /// such a recording is already under way.
    public func startRecording(to url: URL) throws(CaptureError) {
        try Self.checkRecordable(url)
        guard let sink = state.withLock({ $0.recording != nil ? $0.sink : nil }) else {
            throw .invalidState("the stream output is not streaming: start recording once the session runs")
        }
        guard sink.startClip(url) else {
            throw .invalidState("a recording is already under way (\(sink.clipURL?.lastPathComponent ?? "")): stop it first")
        }
    }

    /// Ends the recording ``startRecording(to:)`` started, with the next frame encoded;
    /// ``StreamEvent/recordingFinished(_:error:)`` follows once its file is complete.
    public func stopRecording() { state.withLock { $0.sink }?.stopClip() }

    /// Whether a recording ``startRecording(to:)`` asked for is under way (until its
    /// ``StreamEvent/recordingFinished(_:error:)``).
    public var isRecording: Bool { state.withLock { $0.sink }?.clipURL != nil }

    /// Fails for a file the output cannot record to.
    private static func checkRecordable(_ url: URL) throws(CaptureError) {
        guard MovieMuxer.Container(url: url) != nil else {
            throw .invalidArgument("\(url.lastPathComponent): record to a .mov, .mp4 or .mkv file")
        }
        let folder = url.deletingLastPathComponent().path
        guard access(folder, W_OK) == 0 else {
            throw CaptureError(.fileError, "\(folder) cannot be written to", path: folder)
        }
    }

    // MARK: Events and statistics

    /// Each destination's statistics, in ``destinations`` order: the last run's after the
    /// session stopped (final once each destination has reported ``StreamEvent/ended(_:error:)``);
    /// empty before the first.
    public var statistics: [StreamStatistics] { state.withLock { $0.sink }?.statistics ?? [] }

    /// Video frames encoded in this (or the last) run of the session: what the recording holds.
    public var encodedVideoFrameCount: Int { state.withLock { $0.lastRecording }?.progress.withLock { $0.videoFrames } ?? 0 }

    /// Samples of this run the encode lost (a full queue, the device skipping): the recording's
    /// gaps. Frames a slow link costs one destination are its ``StreamStatistics/framesDropped``.
    public var droppedSampleCount: Int { state.withLock { $0.lastRecording }?.progress.withLock { $0.dropped } ?? 0 }

    /// A new stream of the output's events. Every access makes an independent stream.
    public var events: AsyncStream<StreamEvent> { streams.makeStream(bufferingPolicy: .bufferingNewest(256)) }

    /// Sets who hears the events and on which queue (the output's own serial queue when nil).
    /// The delegate is held weakly.
    public func setDelegate(_ delegate: (any CaptureStreamOutputDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            if let queue { $0.queue = queue }
        }
    }

    // MARK: Session hooks

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        if let recording = state.withLock({ $0.recording }) {
            recording.offer(sample)
        } else if let recording = startStreaming() {
            recording.offer(sample)
        }
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        state.withLock { $0.recording }?.deviceSkipped(count: count, video: connection.mediaType == .video)
    }

    override func sessionDidStopRunning() { stopStreaming(.sessionStopped) }

    override func sessionWasInterrupted(_ reason: CaptureSession.InterruptionReason) {
        // The streams start afresh when the device is back (the next sample starts them).
        stopStreaming(.deviceLost(reason))
    }

    private func stopStreaming(_ reason: MovieRecording.StopReason) {
        state.withLock { state -> MovieRecording? in
            defer {
                state.recording = nil
                state.failed = false
            }
            return state.recording
        }?.queue.push(.stop(at: MonotonicClock.now(), reason: reason))
    }

    /// Opens the encode and the destinations on the first sample of a run (once, whichever
    /// device thread gets here first: a second set of connections would publish twice); nil
    /// (and a runtime error) when it cannot.
    private func startStreaming() -> MovieRecording? {
        starting.withLock { _ -> MovieRecording? in
            let (running, failed) = state.withLock { ($0.recording, $0.failed) }
            if let running { return running }
            guard !failed else { return nil }
            let wanted = settings.withLock { $0 }
            guard !wanted.destinations.isEmpty else { return nil }
            var encoding = MovieOutputSettings()
            encoding.videoQuality = .bitRate(wanted.videoBitRate)
            encoding.keyframeInterval = wanted.keyframeInterval
            encoding.encoderPreset = wanted.encoderPreset
            encoding.audioBitRate = wanted.audioBitRate
            let tracks = MovieRecording.Tracks(connections.filter(\.isEnabled)) { _ in encoding }
            guard tracks.video != nil || tracks.audio != nil else { return nil }
            let configuration = MovieRecording.Configuration(
                url: wanted.recordingURL ?? URL(fileURLWithPath: "stream"), container: .mov, video: tracks.video, audio: tracks.audio,
                fragmentInterval: nil, maxDuration: nil, maxFileSize: nil, minFreeDiskSpace: nil, metadata: MovieMetadata(),
                holdBack: tracks.holdBack, zeroLatency: true)
            do throws(CaptureError) {
                let sink = try PublishingSink(.init(destinations: wanted.destinations, keyframeInterval: wanted.keyframeInterval,
                                                    maximumDelay: wanted.maximumDelay, reconnection: wanted.reconnection,
                                                    recordingURL: wanted.recordingURL, adaptsBitRate: wanted.adaptsBitRate,
                                                    videoBitRate: wanted.videoBitRate),
                                              changeBitRate: { [weak self] bits in self?.state.withLock { $0.recording }?.setVideoBitRate(bits) },
                                              onEvent: { [weak self] event in self?.publish(event) })
                let recording = try MovieRecording(configuration, sink: sink) { [weak sink, weak self] event in
                    switch event {
                    case .started(let origin): sink?.setOrigin(origin)
                    case .finished(let error?) where error.code != .sessionStopped && error.code != .deviceDisconnected:
                        self?.session?.reportRuntimeError(error)
                    default: break
                    }
                }
                state.withLock { state in
                    state.recording = recording
                    state.lastRecording = recording
                    state.sink = sink
                }
                recording.begin()
                return recording
            } catch {
                state.withLock { $0.failed = true }
                session?.reportRuntimeError(error)
                return nil
            }
        }
    }

    private func publish(_ event: StreamEvent) {
        streams.yield(event)
        let (delegate, queue) = state.withLock { ($0.delegate, $0.queue) }
        if let delegate { queue.async { delegate.streamOutput(self, didReport: event) } }
    }
}
