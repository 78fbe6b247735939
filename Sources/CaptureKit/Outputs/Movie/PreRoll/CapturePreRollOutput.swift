import Dispatch
import Foundation
import Synchronization

/// Records clips that start *before* what triggered them — the doorbell that keeps the five
/// seconds before the bell rang. While the session runs, the output encodes its video and
/// sound all the time (H.264 with a keyframe every second, AAC) into a bounded ring of encoded
/// packets; ``trigger(reason:at:)`` writes a clip that starts at the newest keyframe at or
/// before (trigger − ``preRoll``), holds every frame up to (trigger + ``postRoll``), and goes
/// on while triggers keep coming, up to ``longestClip``.
///
/// Clips are QuickTime files in ``clipFolder`` (`clip-YYYYMMDD-HHMMSS.mov`), their trigger's
/// reason in the movie's comment, written in fragments while they grow (a crash leaves them
/// playable) and made ordinary files when done. ``events`` and the delegate tell when a clip
/// starts and finishes (or fails: a clip's failure never stops the recording under it).
///
/// ```swift
/// let doorbell = CapturePreRollOutput()
/// try doorbell.setClipFolder(URL(fileURLWithPath: "/var/lib/doorbell"))
/// try session.addOutput(doorbell)
/// try await session.start()
/// // …the bell rings:
/// try doorbell.trigger(reason: "bell")
/// for await event in doorbell.events {
///     if case .finished(let clip) = event { print(clip.url.path, clip.duration.seconds) }
/// }
/// ```
public final class CapturePreRollOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct Settings {
        var preRoll = MediaTime(value: 5, timescale: 1)
        var postRoll = MediaTime(value: 10, timescale: 1)
        var longestClip = MediaTime(value: 120, timescale: 1)
        var maximumBufferBytes = 64 << 20
        var folder: URL?
        var library: MediaLibrary?
        var sound: SoundTriggerState?
    }

    private struct State {
        var recording: MovieRecording?
        var sink: PreRollSink?
        weak var delegate: (any CapturePreRollOutputDelegate)?
        var queue = DispatchQueue(label: "CaptureKit.preRollOutput.delegate")
        /// Ends the watch on a metadata output's codes (``triggersOnCodes(from:)``).
        var stopCodes: (@Sendable () -> Void)?
    }

    private let settings = Mutex(Settings())
    private let state = Mutex(State())
    private let streams = Broadcast<PreRollEvent>()
    /// Makes each finished clip's thumbnail and saves it into the library, off the encoder's
    /// thread, in the order the clips finished.
    private let finishing = DispatchQueue(label: "CaptureKit.preRollOutput.clips", qos: .utility)

    /// A pre-roll output keeping 5 s before a trigger and 10 s after it; set ``clipFolder``
    /// before the session runs.
    public override init() {
        super.init()
    }

    deinit {
        state.withLock { $0.recording }?.cancel()
        state.withLock { $0.stopCodes }?()
        streams.finish()
    }

    override var acceptedMediaTypes: Set<MediaType> { [.video, .audio] }
    override var encodes: Bool { true }

    // MARK: Settings

    /// How much of what came before a trigger a clip holds (5 s by default); the clip starts at
    /// the keyframe at or before that, so up to a second more.
    public var preRoll: MediaTime { settings.withLock { $0.preRoll } }

    /// How much after the last trigger a clip holds (10 s by default).
    public var postRoll: MediaTime { settings.withLock { $0.postRoll } }

    /// The longest clip, however long triggers keep coming (120 s by default).
    public var longestClip: MediaTime { settings.withLock { $0.longestClip } }

    /// Sets ``preRoll``, ``postRoll`` and ``longestClip`` (read when the session starts):
    /// `.invalidArgument` unless each is a time of at least zero and the longest clip is
    /// longer than the pre-roll.
    public func setDurations(preRoll: MediaTime, postRoll: MediaTime, longestClip: MediaTime) throws(CaptureError) {
        for (name, value) in [("pre-roll", preRoll), ("post-roll", postRoll), ("longest clip", longestClip)] {
            guard value.isNumeric, value >= .zero else { throw .invalidArgument("the \(name) \(value) must be a time of at least zero") }
        }
        guard longestClip > preRoll else { throw .invalidArgument("the longest clip must be longer than the pre-roll") }
        settings.withLock {
            $0.preRoll = preRoll
            $0.postRoll = postRoll
            $0.longestClip = longestClip
        }
    }

    /// The most encoded bytes the ring keeps (64 MiB by default): past it, the oldest whole
    /// second is dropped, even if the pre-roll then reaches back less far.
    public var maximumBufferBytes: Int { settings.withLock { $0.maximumBufferBytes } }

    /// Sets ``maximumBufferBytes``; `.invalidArgument` below 64 KiB.
    public func setMaximumBufferBytes(_ bytes: Int) throws(CaptureError) {
        guard bytes >= 64 << 10 else { throw .invalidArgument("a pre-roll buffer of \(bytes) bytes is too small (64 KiB at least)") }
        settings.withLock { $0.maximumBufferBytes = bytes }
    }

    /// Where clips are written; none until set.
    public var clipFolder: URL? { settings.withLock { $0.folder } }

    /// Sets ``clipFolder``: an existing, writable folder, else `.fileError`.
    public func setClipFolder(_ url: URL) throws(CaptureError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue,
              access(url.path, W_OK) == 0 else {
            throw CaptureError(.fileError, "\(url.path) is not a folder clips can be written to", path: url.path)
        }
        settings.withLock { $0.folder = url }
    }

    /// The media library finished clips are saved into, moved from the clip folder (their
    /// thumbnails stay there); nil (the default) keeps them in the folder.
    public var clipLibrary: MediaLibrary? { settings.withLock { $0.library } }

    /// Sets ``clipLibrary``. A clip the library cannot take stays in the clip folder, and its
    /// `.failed` event says why.
    public func setClipLibrary(_ library: MediaLibrary?) {
        settings.withLock { $0.library = library }
    }

    /// Coded bytes the ring holds now.
    public var bufferedBytes: Int { state.withLock { $0.sink }?.bufferedBytes ?? 0 }

    // MARK: Triggers and events

    /// Asks for a clip around `time` (a capture time on the session clock; now by default —
    /// a motion event's `presentationTimeStamp` for motion). A trigger while a clip is being
    /// written extends it. `.invalidState` unless the session runs and the output records.
    public func trigger(reason: String, at time: MediaTime = .now) throws(CaptureError) {
        guard let sink = state.withLock({ $0.sink }) else {
            throw .invalidState("the pre-roll output records only while its session runs (with a clip folder set)")
        }
        sink.trigger(PreRollSink.Trigger(reason: reason, time: time))
    }

    /// What starts a clip on sound, nil (the default) for none.
    public var soundTrigger: SoundTrigger? { settings.withLock { $0.sound?.trigger } }

    /// Sets ``soundTrigger``: from then on, the session's sound above the trigger's threshold
    /// for its minimum duration triggers a clip (reason `"sound"`) at the moment the loud
    /// stretch began, and again every second while it lasts. `.invalidArgument` for a
    /// threshold outside −160...0 dBFS or a negative duration.
    public func setSoundTrigger(_ trigger: SoundTrigger?) throws(CaptureError) {
        if let trigger {
            guard trigger.threshold.isFinite, (-160...0).contains(trigger.threshold) else {
                throw .invalidArgument("a sound trigger's threshold of \(trigger.threshold) dBFS is outside -160...0")
            }
            guard trigger.minimumDuration.isNumeric, trigger.minimumDuration >= .zero else {
                throw .invalidArgument("a sound trigger's minimum duration must be a time of at least zero")
            }
        }
        settings.withLock { $0.sound = trigger.map(SoundTriggerState.init) }
    }

    /// Replaces the watch that triggers clips from elsewhere (``triggersOnCodes(from:)``): `stop`
    /// ends the new one; the one before is ended now.
    func replaceTriggerWatch(stop: (@Sendable () -> Void)?) {
        let previous = state.withLock { state in
            defer { state.stopCodes = stop }
            return state.stopCodes
        }
        previous?()
    }

    /// A new stream of the output's events. Every access makes an independent stream.
    public var events: AsyncStream<PreRollEvent> { streams.makeStream(bufferingPolicy: .bufferingNewest(64)) }

    /// Sets who hears the events and on which queue (the output's own serial queue when nil).
    /// The delegate is held weakly.
    public func setDelegate(_ delegate: (any CapturePreRollOutputDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            if let queue { $0.queue = queue }
        }
    }

    // MARK: Session hooks

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        if let audio = sample.audioBuffer { listen(to: audio, at: sample.presentationTimeStamp) }
        if let recording = state.withLock({ $0.recording }) {
            recording.offer(sample)
        } else if let recording = startRecording() {
            recording.offer(sample)
        }
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        state.withLock { $0.recording }?.deviceSkipped(count: count, video: connection.mediaType == .video)
    }

    override func sessionDidStopRunning() { stopRecording(.sessionStopped) }

    override func sessionWasInterrupted(_ reason: CaptureSession.InterruptionReason) {
        // The ring starts afresh when the device is back (the next sample starts a recording).
        stopRecording(.deviceLost(reason))
    }

    /// Runs the sound trigger over a buffer of the session's sound, on the device's thread.
    private func listen(to buffer: AudioBuffer, at time: MediaTime) {
        let due = settings.withLock { settings -> MediaTime? in
            guard settings.sound != nil else { return nil }
            return settings.sound?.hear(level: AudioLevelMeter.loudestLevel(of: buffer), at: time, duration: buffer.duration)
        }
        if let due, let sink = state.withLock({ $0.sink }) { sink.trigger(PreRollSink.Trigger(reason: "sound", time: due)) }
    }

    private func stopRecording(_ reason: MovieRecording.StopReason) {
        state.withLock { state -> MovieRecording? in
            defer { state.recording = nil; state.sink = nil }
            return state.recording
        }?.queue.push(.stop(at: MonotonicClock.now(), reason: reason))
    }

    /// Starts the endless recording under the ring, on the first sample of a run; nil (and a
    /// runtime error) when it cannot.
    private func startRecording() -> MovieRecording? {
        let wanted = settings.withLock { $0 }
        guard let folder = wanted.folder else { return nil }
        let connections = self.connections.filter(\.isEnabled)
        var encoding = MovieOutputSettings()
        encoding.keyframeInterval = MediaTime(value: 1, timescale: 1)
        let tracks = MovieRecording.Tracks(connections) { _ in encoding }
        guard let video = tracks.video else { return nil }
        let configuration = MovieRecording.Configuration(
            url: folder, container: .mov, video: video, audio: tracks.audio, fragmentInterval: nil, maxDuration: nil,
            maxFileSize: nil, minFreeDiskSpace: nil, metadata: MovieMetadata(), holdBack: tracks.holdBack, zeroLatency: true)
        let sink = PreRollSink(.init(preRoll: wanted.preRoll, postRoll: wanted.postRoll, longestClip: wanted.longestClip, folder: folder,
                                     fragmentInterval: MediaTime(value: 1, timescale: 1), frameDuration: video.frameDuration),
                               maximumBytes: wanted.maximumBufferBytes) { [weak self] event in self?.clipEvent(event) }
        do throws(CaptureError) {
            let recording = try MovieRecording(configuration, sink: sink) { [weak sink] event in
                if case .started(let origin) = event { sink?.setOrigin(origin) }
            }
            let started = state.withLock { state -> Bool in
                guard state.recording == nil else { return false }
                state.recording = recording
                state.sink = sink
                return true
            }
            guard started else {
                recording.cancel()
                return state.withLock { $0.recording }
            }
            recording.begin()
            return recording
        } catch {
            session?.reportRuntimeError(error)
            return nil
        }
    }

    private func clipEvent(_ event: PreRollSink.Event) {
        switch event {
        case .started(let url, let reason, let trigger, let start):
            publish(.started(url: url, reason: reason, triggerTime: trigger, startTime: start))
        case .finished(let url, let reason, _, _, _, let error?):
            publish(.failed(url: url, reason: reason, error: error))
        case .finished(let url, let reason, let trigger, let start, let duration, nil):
            let library = settings.withLock { $0.library }
            finishing.async { [self] in
                let thumbnail = Self.thumbnail(of: url, at: trigger - start)
                do throws(CaptureError) {
                    let asset = try library?.saveVideo(at: url, move: true)
                    publish(.finished(PreRollClip(url: asset?.fileURL ?? url, reason: reason, triggerTime: trigger, startTime: start,
                                                  duration: duration, thumbnailURL: thumbnail, asset: asset)))
                } catch {
                    publish(.failed(url: url, reason: reason, error: error))
                }
            }
        }
    }

    /// Writes a JPEG of the clip's frame at `time` (320 pixels wide at most) beside it; nil
    /// when it cannot.
    private static func thumbnail(of clip: URL, at time: MediaTime) -> URL? {
        let url = clip.deletingPathExtension().appendingPathExtension("jpg")
        guard let asset = try? MediaAsset(url: clip) else { return nil }
        let generator = AssetImageGenerator(asset: asset)
        generator.maximumSize = MediaAsset.Size(width: 320, height: 0)
        guard let jpeg = try? generator.jpegData(at: max(.zero, time)), (try? jpeg.data.write(to: url, options: .withoutOverwriting)) != nil else {
            return nil
        }
        return url
    }

    private func publish(_ event: PreRollEvent) {
        streams.yield(event)
        let (delegate, queue) = state.withLock { ($0.delegate, $0.queue) }
        if let delegate { queue.async { delegate.preRollOutput(self, didOutput: event) } }
    }
}
