import Foundation
import Synchronization

/// One recording, from `startRecording` to the closed file: the encoder thread's side of a
/// `CaptureMovieFileOutput`.
///
/// Timing is ``RecordingTimeline``'s (time zero, pauses, source → file time) and
/// ``AudioPlacer``'s (audio as one contiguous run placed by capture time). Audio is held back
/// until video has passed its time, so pauses (decided on video frames) apply to both tracks
/// alike and the two tracks start and end within a sample of each other.
final class MovieRecording: @unchecked Sendable {
    // Unchecked Sendable: state confined to the recording's encoder thread.
    enum StopReason: Sendable {
        case requested
        case sessionStopped
        case deviceLost(CaptureSession.InterruptionReason)
    }

    struct VideoTrack: Sendable {
        var width: Int
        var height: Int
        var sourceFormat: PixelFormat
        var frameDuration: MediaTime
        var rotation: Double
        var mirrored: Bool
        var settings: MovieOutputSettings
        /// The camera's stream, when its packets are stored as they came instead of encoded.
        var passThrough: CodecParameters? = nil
    }

    struct AudioTrack: Sendable {
        var format: AudioFormat
        var settings: MovieOutputSettings
    }

    struct Configuration: Sendable {
        var url: URL
        var container: MovieMuxer.Container
        var video: VideoTrack?
        var audio: AudioTrack?
        var fragmentInterval: MediaTime?
        var maxDuration: MediaTime?
        var maxFileSize: Int64?
        var minFreeDiskSpace: Int64?
        var metadata: MovieMetadata
        /// Whether producers may be held back instead of dropping (no live device).
        var holdBack: Bool
        /// Whether the video encoder holds no frame back (``VideoEncoder/Speed/zeroLatency``):
        /// for frames that come far apart (a time-lapse).
        var zeroLatency = false
        /// The capture time before which nothing is recorded: the file starts with the first
        /// sample at or after it (several cameras' recordings started on one frame time).
        var startsAt: MediaTime?
    }

    /// What the recording tells its output, on the encoder thread.
    enum Event: Sendable {
        /// The first frame went in; file time zero is this capture time.
        case started(at: MediaTime)
        case paused
        case resumed
        case willFinish
        case finished(CaptureError?)
    }

    /// Counters readable from any thread.
    struct Progress: Sendable {
        var duration = MediaTime.zero
        var fileSize: Int64 = 0
        var videoFrames = 0
        var audioSamples: Int64 = 0
        /// Samples of the recording missing from the file: video frames and audio buffers the
        /// queue refused, frames the pace dropped, samples the device skipped — each counted
        /// only when it falls inside the recording (from time zero to the stop or the maximum
        /// duration, outside pauses), so the file's frames and these add up to exactly the
        /// frames the camera produced in that time.
        var dropped = 0
        var paused = false
        var videoGaps: [VideoGap] = []
    }

    let configuration: Configuration
    let queue = RecordingQueue()
    let progress = Mutex(Progress())
    private let onEvent: @Sendable (Event) -> Void
    private var worker: WorkerThread?

    // Encoder-thread state.
    private let muxer: any MovieSink
    private var videoEncoder: VideoEncoder?
    /// Stores what the camera coded: every frame of a pass-through track, a webcam's JPEGs in
    /// an MJPEG one.
    private let copier: PacketCopier
    /// Whether the video track holds the camera's packets as they came (it looks at no pixels).
    var copiesVideo: Bool { configuration.video?.passThrough != nil }
    /// A pass-through track starts, and goes on after lost frames, only at a keyframe.
    private var awaitingKeyframe = true
    private var keyframeInterval = MediaTime.zero
    /// Live recordings: what keeps the encoder close behind the camera, the speeds it may
    /// step through (index: its level), the frames inside the encoder by presentation time
    /// (90 kHz), and a speed change to make once the current call into the encoder returns.
    private var pace: EncoderPace?
    private var speeds: [VideoEncoder.Speed] = []
    private var framesInEncoder: [Int64: (captured: MediaTime, handed: MediaTime)] = [:]
    private var pendingStep: EncoderPace.Step?
    private let audioEncoder: AudioEncoder?
    private let startDate = Date()
    private var timeline = RecordingTimeline()
    private var placer = AudioPlacer()
    private var videoEnd: MediaTime?          // end of the last frame written (source time)
    private var horizon: MediaTime?           // end of the last frame seen, written or not
    private var pendingAudio = AudioBacklog()
    private var audioHorizon: MediaTime?      // end of the last audio sample seen (source time)
    private var videoLost = false             // the camera is away; the recording goes on
    private var audioLost = false             // the microphone is away; its return may leave any gap
    private var stopRequest: (at: MediaTime, reason: StopReason)?
    /// A bit rate asked for from another thread, taken with the next frame; the one in force.
    private let requestedBitRate = Mutex<Int?>(nil)
    private var bitRate: Int?
    private var lastSpaceCheck: MediaTime = .zero
    /// The decode time of the last packet stored as the camera coded it (90 kHz).
    private var lastCopiedDTS: Int64?
    /// The presentation time of the last frame handed on (90 kHz).
    private var lastVideoPTS: Int64?
    private var finished = false

    /// How often the muxer cuts a fragment: an eighth of the interval asked for. A crash loses
    /// the open fragment plus the frames inside the encoder and its queue (``EncoderPace`` keeps
    /// those under about half a second for a live recording), so short fragments keep the loss
    /// within one interval. They cost ~200 bytes each, and a finished recording is defragmented
    /// anyway.
    private var fragmentDuration: MediaTime? {
        configuration.fragmentInterval.map { $0.convertScale(1_000_000).multiplied(by: 1, dividedBy: 8) }
    }

    /// Opens the file, the encoders and writes the header — everything that can fail before a
    /// single frame is captured fails here, on the caller's thread.
    /// `sink` takes the packets instead of a movie file at the configuration's URL.
    init(_ configuration: Configuration, sink: (any MovieSink)? = nil, onEvent: @escaping @Sendable (Event) -> Void) throws(CaptureError) {
        self.configuration = configuration
        self.onEvent = onEvent
        let path = configuration.url.path
        let muxer: any MovieSink
        if let sink { muxer = sink } else { muxer = try MovieMuxer(path: path, container: configuration.container) }
        self.muxer = muxer
        do throws(CaptureError) {
            copier = try PacketCopier()
            if let video = configuration.video, let coded = video.passThrough {
                try muxer.addVideo(copying: coded, rotation: video.rotation, mirrored: video.mirrored)
                videoEncoder = nil
            } else if let video = configuration.video {
                keyframeInterval = video.settings.keyframeInterval ?? configuration.fragmentInterval ?? MediaTime(value: 2, timescale: 1)
                var speed = VideoEncoder.Speed.configured(video.settings, live: !configuration.holdBack)
                speed.zeroLatency = configuration.zeroLatency
                let encoder = try Self.videoEncoder(video, keyframeInterval: keyframeInterval, globalHeader: muxer.needsGlobalHeader,
                                                    speed: speed)
                try muxer.addVideo(encoder, rotation: video.rotation, mirrored: video.mirrored)
                videoEncoder = encoder
                if !configuration.holdBack {
                    // Live: start one step faster when that encoder writes the track's headers.
                    speeds = [encoder.speed] + VideoEncoder.Speed.fallbacks(for: video.settings)
                    var steps = speeds.count - 1
                    if steps > 0 {
                        let faster = try? Self.videoEncoder(video, keyframeInterval: keyframeInterval, globalHeader: muxer.needsGlobalHeader, speed: speeds[1])
                        if let faster, !encoder.parameterSets.isEmpty, faster.parameterSets == encoder.parameterSets {
                            videoEncoder = faster
                        } else {
                            steps = 0
                        }
                    }
                    pace = EncoderPace(steps: steps, level: steps > 0 ? 1 : 0)
                }
            } else {
                videoEncoder = nil
            }
            if let audio = configuration.audio {
                guard configuration.container.supports(audio.settings.audioCodec) else {
                    throw CaptureError(.unsupportedFormat, "a .\(configuration.container.rawValue) file cannot hold \(audio.settings.audioCodec.rawValue) audio", path: path)
                }
                let encoder = try AudioEncoder(codec: audio.settings.audioCodec, input: audio.format,
                                               bitRate: audio.settings.audioBitRate, globalHeader: muxer.needsGlobalHeader)
                try muxer.addAudio(encoder)
                audioEncoder = encoder
            } else {
                audioEncoder = nil
            }
            try muxer.start(metadata: configuration.metadata, startDate: startDate, fragmentInterval: fragmentDuration)
        } catch {
            muxer.closeFile()
            if !muxer.path.isEmpty { unlink(muxer.path) }
            throw error
        }
    }

    private static func videoEncoder(_ video: VideoTrack, keyframeInterval: MediaTime, globalHeader: Bool,
                                     speed: VideoEncoder.Speed) throws(CaptureError) -> VideoEncoder {
        try VideoEncoder(codec: video.settings.videoCodec, width: video.width, height: video.height,
                         sourceFormat: video.sourceFormat, frameDuration: video.frameDuration, settings: video.settings,
                         keyframeInterval: keyframeInterval, globalHeader: globalHeader, speed: speed)
    }

    /// Starts the encoder thread.
    func begin() {
        worker = WorkerThread(name: "CaptureKit.movie") { [self] thread in
            while !finished, !thread.isStopping {
                let item = queue.pop(before: Date(timeIntervalSinceNow: 0.05))
                handle(item)
            }
        }
    }

    /// Offers a sample from a device thread. A sample the full queue refuses is noted in its
    /// place and counted by the encoder thread if it belongs to the recording.
    func offer(_ sample: SampleBuffer) {
        _ = queue.push(sample, holdBack: configuration.holdBack)
    }

    /// The device skipped `count` samples after the last one it delivered (from a device
    /// thread, in order with its samples): counted by the encoder thread as far as they fall
    /// inside the recording.
    func deviceSkipped(count: Int, video: Bool) {
        guard count > 0 else { return }
        queue.push(.skipped(count: count, video: video))
    }

    // MARK: Encoder thread

    private func handle(_ item: RecordingQueue.Item?) {
        do throws(CaptureError) {
            switch item {
            case .sample(let sample):
                if sample.mediaType == .video { try handleVideo(sample) } else { try handleAudio(sample) }
            case .refused(let run):
                if run.video {
                    let duration = run.duration.isNumeric ? run.duration : configuration.video?.frameDuration ?? .zero
                    for index in 0..<run.count where !finished { try missedVideo(at: run.time(at: index), duration: duration) }
                } else {
                    missedAudio(run.count)
                }
            case .skipped(let count, let video):
                if video {
                    // The frames after the last one seen; none before the recording's first.
                    guard let start = horizon, let duration = configuration.video?.frameDuration else { break }
                    for index in 0..<count where !finished { try missedVideo(at: start + duration * Int64(index), duration: duration) }
                } else {
                    missedAudio(count)
                }
            case .pause(let time):
                timeline.requestPause(at: time)
            case .resume(let time):
                timeline.requestResume(at: time)
                if !hasVideo { report(timeline.resume(at: time)) }
            case .deviceLost(let video):
                if video {
                    videoLost = hasVideo
                    awaitingKeyframe = true
                } else {
                    audioLost = audioEncoder != nil
                }
                if videoLost, let end = audioHorizon { try flushAudio(upTo: end) }
            case .stop(let time, let reason):
                stopRequest = (time, reason)
                if case .requested = reason, !isFinal {} else { try finish(nil) }
            case nil:
                // Nothing arrived for a while: a stop whose frames will never come completes now.
                if let stop = stopRequest, isFinal || MonotonicClock.now() > stop.at + MediaTime(value: 1, timescale: 4) {
                    try finish(nil)
                }
            }
        } catch {
            abort(error)
        }
    }

    /// Whether waiting any longer for a requested stop can no longer change the file. After the
    /// stop, a video frame is not recorded and audio is cut at the last frame written, so the
    /// grace period only lets late audio fill the time up to that frame; once audio has arrived
    /// that far (or there is no audio track), the file is final and the recording finishes at
    /// once — an unpaced file would otherwise sit idle for the whole grace period.
    private var isFinal: Bool {
        guard hasVideo, let videoEnd else { return false }
        guard audioEncoder != nil else { return true }
        return audioHorizon.map { $0 >= videoEnd } ?? false
    }

    /// Whether the recording has a video track.
    private var hasVideo: Bool { videoEncoder != nil || copiesVideo }

    /// Whether `time` comes before the recording's asked-for start (and the file has not started).
    private func beforeStart(_ time: MediaTime) -> Bool {
        guard timeline.origin == nil, let startsAt = configuration.startsAt else { return false }
        return time < startsAt
    }

    private func handleVideo(_ sample: SampleBuffer) throws(CaptureError) {
        guard hasVideo, let video = configuration.video else { return }
        let pts = sample.presentationTimeStamp
        if beforeStart(pts), stopRequest == nil { return }
        let duration = sample.duration.isNumeric ? sample.duration : video.frameDuration
        // Samples are handled in arrival order: a frame that arrives after the stop was asked
        // for is not part of the recording (also right for unpaced sources, whose timestamps
        // run ahead of the clock).
        if stopRequest != nil {
            try finish(nil)
            return
        }
        var firstPacket = 0
        if copiesVideo {
            // What comes before the camera's next keyframe cannot be decoded: not in the file
            // yet, or lost (and counted) after a gap — also the packets a frame carries ahead
            // of its keyframe (those the decoder could make nothing of, joining mid-group). So
            // is a frame without the camera's packets (it came back sending another codec).
            let packets = sample.compressedFrames
            guard let first = packets.first, first.codec != .jpeg,
                  let start = awaitingKeyframe ? packets.firstIndex(where: \.isKeyFrame) : 0 else {
                try missedVideo(at: pts, duration: duration)
                return
            }
            firstPacket = start
            awaitingKeyframe = false
        }
        report(timeline.start(at: pts))
        defer { horizon = pts + duration }
        var transitions: [RecordingTimeline.Transition] = []
        let decision = timeline.admitVideo(at: pts, lastWrittenEnd: videoEnd, transitions: &transitions)
        transitions.forEach(report)
        guard case .write(let fileTime) = decision else {
            // A paused pass-through track resumes at a keyframe.
            awaitingKeyframe = true
            try flushAudio(upTo: pts + duration)
            return
        }
        if videoLost, let end = videoEnd {
            // The camera is back: the picture held its last frame over the gap.
            videoLost = false
            let gap = VideoGap(start: timeline.fileTime(of: end), duration: pts - end)
            progress.withLock { $0.videoGaps.append(gap) }
        }
        if let limit = configuration.maxDuration, fileTime + duration > limit {
            try finish(stopError(.maximumDurationReached, "the recording reached its maximum duration of \(limit.seconds) s"))
            return
        }
        let handed = MonotonicClock.now()
        if var pace {
            let oldest = framesInEncoder.values.min { $0.captured < $1.captured }
            let (admission, step) = pace.admit(captured: pts, now: handed, newerWaiting: queue.queuedVideoCount > 0, oldestInside: oldest)
            self.pace = pace
            if let step { try changeSpeed(step) }
            if admission == .drop {
                progress.withLock { $0.dropped += 1 }
                try flushAudio(upTo: pts + duration)
                return
            }
        }
        var pts90k = fileTime.convertScale(VideoEncoder.timeBase.den).value
        // Presentation times must grow, or the encoder and the muxer refuse the frame: a live
        // source may date two frames within a tick (a burst it could only order).
        if let last = lastVideoPTS, pts90k <= last { pts90k = last + 1 }
        lastVideoPTS = pts90k
        let duration90k = duration.convertScale(VideoEncoder.timeBase.den).value
        if copiesVideo {
            try copyPackets(of: sample, from: firstPacket, at: fileTime, duration: duration90k)
            try noteWritten(pts: pts, duration: duration, fileTime: fileTime)
            return
        }
        // After any speed change above: the encoder that takes the frame.
        guard let encoder = videoEncoder else { return }
        if let bits = requestedBitRate.withLock({ request in defer { request = nil }; return request }) {
            bitRate = bits
            encoder.setBitRate(bits)
        }
        if pace != nil {
            // x264 holds at most its lookahead (250 frames at the very most): more entries
            // would mean packets that never matched, which must not pile up or pin the lag.
            if framesInEncoder.count > 300 { framesInEncoder.removeAll() }
            framesInEncoder[pts90k] = (pts, handed)
        }
        if video.settings.passThrough, let jpeg = sample.compressedFrame, let source = sample.pixelBuffer,
           encoder.canPassThrough(jpeg, width: source.width, height: source.height, codec: video.settings.videoCodec) {
            // The camera's JPEG is already what an MJPEG recording stores.
            try copier.copy(jpeg, pts: pts90k, dts: pts90k, duration: duration90k, write: writeVideo)
        } else {
            let target = VideoTarget(pixelFormat: encoder.pixelFormat, width: video.width, height: video.height)
            guard let frame = try sample.converted(to: target).pixelBuffer else { return }
            if muxer.wantsKeyframe(at: fileTime) { encoder.requestKeyframe() }
            try encoder.encode(frame, pts: pts90k, duration: duration90k, write: writeVideo)
        }
        if let step = pendingStep {
            pendingStep = nil
            try changeSpeed(step)
        }
        try noteWritten(pts: pts, duration: duration, fileTime: fileTime)
    }

    /// Writes the packets the camera coded a frame in, from the `first` (the keyframe a track starts at), the frame presented at `fileTime`.
    private func copyPackets(of sample: SampleBuffer, from first: Int, at fileTime: MediaTime, duration: Int64) throws(CaptureError) {
        let scale = VideoEncoder.timeBase.den
        for packet in sample.compressedFrames[first...] {
            var dts = (fileTime + packet.decodeOffset).convertScale(scale).value
            // Decode times must grow, or the muxer refuses the packet and the recording ends: a
            // camera's clock dated two packets within a tick (a jump it was re-anchored over).
            if let last = lastCopiedDTS, dts <= last { dts = last + 1 }
            lastCopiedDTS = dts
            let pts = max(dts, (fileTime + packet.presentationOffset).convertScale(scale).value)
            try copier.copy(packet, pts: pts, dts: dts, duration: duration, write: muxer.write)
        }
    }

    /// Books a frame written: the track's end, the counters, the audio up to it and the limits.
    private func noteWritten(pts: MediaTime, duration: MediaTime, fileTime: MediaTime) throws(CaptureError) {
        videoEnd = pts + duration
        progress.withLock {
            $0.videoFrames += 1
            $0.duration = fileTime + duration
            $0.fileSize = muxer.payloadBytes
        }
        try flushAudio(upTo: pts + duration)
        try checkLimits(at: fileTime + duration)
    }

    /// A video frame that never reached the encoder — refused by the full queue, or skipped by
    /// the device — decided as one the pace drops: it ends a stopped recording or one at its
    /// maximum duration as a frame would, and is counted dropped only when the file would have
    /// held it (after time zero, outside a pause). So the frames in the file and those counted
    /// are exactly the frames the camera produced inside the recording, whatever was lost.
    private func missedVideo(at pts: MediaTime, duration: MediaTime) throws(CaptureError) {
        guard hasVideo, timeline.origin != nil else { return }
        // A pass-through track cannot decode past a lost packet: it goes on at a keyframe.
        if copiesVideo { awaitingKeyframe = true }
        if stopRequest != nil {
            try finish(nil)
            return
        }
        horizon = max(horizon ?? pts, pts + duration)
        var transitions: [RecordingTimeline.Transition] = []
        let decision = timeline.admitVideo(at: pts, lastWrittenEnd: videoEnd, transitions: &transitions)
        transitions.forEach(report)
        if case .write(let fileTime) = decision {
            if let limit = configuration.maxDuration, fileTime + duration > limit {
                try finish(stopError(.maximumDurationReached, "the recording reached its maximum duration of \(limit.seconds) s"))
                return
            }
            progress.withLock { $0.dropped += 1 }
        }
        try flushAudio(upTo: pts + duration)
    }

    /// Audio buffers the queue refused or the device skipped: counted while the recording
    /// runs (after time zero, before the stop, outside a pause), where the file lacks them.
    private func missedAudio(_ count: Int) {
        guard audioEncoder != nil, timeline.origin != nil, stopRequest == nil, !timeline.isPaused else { return }
        progress.withLock { $0.dropped += count }
    }

    /// Writes a video packet and tells the pace when the frame left the encoder.
    private func writeVideo(_ packet: EncodedPacket) throws(CaptureError) {
        let pts = packet.presentationTimestamp
        try muxer.write(packet)
        guard var pace, let pts, let frame = framesInEncoder.removeValue(forKey: pts) else { return }
        if let step = pace.packetLeft(captured: frame.captured, handed: frame.handed, now: MonotonicClock.now()) { pendingStep = step }
        self.pace = pace
    }

    /// Replaces the video encoder by one at the pace's new level, if its stream headers are
    /// the track's (else the pace learns that the step cannot be taken). The old encoder is
    /// flushed first: the frames inside it are written, and the new one starts with a keyframe.
    private func changeSpeed(_ step: EncoderPace.Step) throws(CaptureError) {
        guard var pace, let video = configuration.video, let current = videoEncoder else { return }
        let speed = speeds[pace.level]
        let name = configuration.url.lastPathComponent
        let replacement: VideoEncoder
        do throws(CaptureError) {
            replacement = try Self.videoEncoder(video, keyframeInterval: keyframeInterval, globalHeader: muxer.needsGlobalHeader, speed: speed)
        } catch {
            CaptureLog.emit(.warning, "capturekit", "movie \(name): cannot open the \(speed.preset.rawValue) encoder (\(error.message)); staying at \(current.speed.preset.rawValue)")
            pace.stepFailed(step)
            self.pace = pace
            return
        }
        guard !current.parameterSets.isEmpty, replacement.parameterSets == current.parameterSets else {
            CaptureLog.emit(.info, "capturekit", "movie \(name): the \(speed.preset.rawValue) preset writes other stream headers than the track's; frames are dropped instead")
            pace.stepFailed(step)
            self.pace = pace
            return
        }
        try current.encode(nil, pts: 0, duration: 0, write: writeVideo)
        if let bitRate { replacement.setBitRate(bitRate) }
        videoEncoder = replacement
        framesInEncoder.removeAll()
        pendingStep = nil
        CaptureLog.emit(.info, "capturekit", "movie \(name): encoder \(step == .faster ? "behind" : "keeping up"), preset \(current.speed.preset.rawValue) -> \(speed.preset.rawValue)")
    }

    private func handleAudio(_ sample: SampleBuffer) throws(CaptureError) {
        guard audioEncoder != nil else { return }
        if !hasVideo {
            if stopRequest != nil {
                try finish(nil)
                return
            }
            if beforeStart(sample.presentationTimeStamp) { return }
            report(timeline.start(at: sample.presentationTimeStamp))
            report(timeline.admitAudioOnly(at: sample.presentationTimeStamp))
            pendingAudio.append(sample)
            try flushAudio(upTo: timeline.pausedSince ?? (sample.presentationTimeStamp + sample.duration))
            if timeline.isPaused { pendingAudio.removeAll() }
            let fileTime = timeline.fileTime(of: sample.presentationTimeStamp + sample.duration)
            progress.withLock { $0.duration = fileTime }
            if let limit = configuration.maxDuration, fileTime >= limit {
                try finish(stopError(.maximumDurationReached, "the recording reached its maximum duration of \(limit.seconds) s"))
                return
            }
            try checkLimits(at: fileTime)
            return
        }
        let end = sample.presentationTimeStamp + sample.duration
        audioHorizon = audioHorizon.map { max($0, end) } ?? end
        pendingAudio.append(sample)
        // Video stalled (a lost camera): keep at most a few seconds of audio waiting. Unpaced
        // sources are the exception: their audio decodes far ahead of the video and must all be
        // kept (10 minutes of lead, ~115 MB of stereo 16-bit audio, before anything is lost).
        let maximumLead = MediaTime(value: configuration.holdBack ? 600 : 3, timescale: 1)
        if let oldest = pendingAudio.oldestStart, sample.presentationTimeStamp - oldest > maximumLead {
            pendingAudio.dropOldest()
            progress.withLock { $0.dropped += 1 }
        }
        // While the camera is away, sound is written as it comes instead of waiting for video.
        if videoLost { try flushAudio(upTo: end) } else if let horizon { try flushAudio(upTo: horizon) }
    }

    /// Passes a timeline transition on, keeping `progress.paused` in step.
    private func report(_ transition: RecordingTimeline.Transition?) {
        switch transition {
        case .started:
            let origin = timeline.origin ?? .zero
            if CaptureLog.wants(.info) {
                CaptureLog.emit(.info, "capturekit", "movie \(configuration.url.lastPathComponent): started at capture time \(String(format: "%.6f", origin.seconds)) s")
            }
            onEvent(.started(at: origin))
        case .paused:
            progress.withLock { $0.paused = true }
            onEvent(.paused)
        case .resumed:
            progress.withLock { $0.paused = false }
            onEvent(.resumed)
        case nil: break
        }
    }

    /// Writes the waiting audio that lies before `limit`, skipping what falls before time zero
    /// or inside a pause; keeps the rest waiting.
    private func flushAudio(upTo limit: MediaTime) throws(CaptureError) {
        guard let encoder = audioEncoder, timeline.origin != nil else { return }
        try pendingAudio.drain(upTo: limit) { (buffer, frames, start) throws(CaptureError) in
            let rate = Int32(buffer.format.sampleRate)
            try timeline.forEachRun(from: start, count: Int64(frames.count), rate: rate) { (run) throws(CaptureError) in
                let samples = (frames.lowerBound + run.samples.lowerBound)..<(frames.lowerBound + run.samples.upperBound)
                if run.isWritten { try writeAudio(buffer, samples, at: run.time, encoder: encoder) }
            }
        }
    }

    /// Writes `samples` of `buffer`, the first captured at `time`, where the placer puts them.
    private func writeAudio(_ buffer: AudioBuffer, _ samples: Range<Int64>, at time: MediaTime, encoder: AudioEncoder) throws(CaptureError) {
        let rate = Int32(buffer.format.sampleRate)
        let placement = placer.place(samples, at: timeline.filePosition(of: time, rate: rate), rate: rate, afterLoss: audioLost)
        audioLost = false
        if placement.silence > 0 { try encoder.appendSilence(frames: Int(placement.silence), write: muxer.write) }
        guard !placement.samples.isEmpty else { return }
        try encoder.append(buffer.storage.bytes + Int(placement.samples.lowerBound) * buffer.format.bytesPerFrame,
                           frames: placement.samples.count, write: muxer.write)
        progress.withLock { $0.audioSamples = placer.samplesWritten }
    }

    private func checkLimits(at fileTime: MediaTime) throws(CaptureError) {
        if let limit = configuration.maxFileSize, projectedFileSize() >= limit {
            try finish(stopError(.maximumFileSizeReached, "the recording reached its maximum file size of \(limit) bytes"))
            return
        }
        if let minimum = configuration.minFreeDiskSpace, fileTime - lastSpaceCheck >= MediaTime(value: 1, timescale: 2) {
            lastSpaceCheck = fileTime
            var stats = statvfs()
            if statvfs(muxer.path, &stats) == 0, Int64(stats.f_bavail) * Int64(stats.f_frsize) < minimum {
                try finish(stopError(.diskFull, "free disk space fell below the limit of \(minimum) bytes"))
            }
        }
    }

    /// What the file would weigh if finished now: packets written, the frames still inside the
    /// encoder (at the average packet size so far), the audio to come with them, and the index
    /// (about 24 bytes per sample plus a few kilobytes), with 2 % to spare.
    private func projectedFileSize() -> Int64 {
        let frames = Int64(progress.withLock { $0.videoFrames })
        let packets = Int64(muxer.videoPacketCount)
        let inFlight = max(0, frames - packets)
        let average = packets > 0 ? muxer.payloadBytes / Int64(max(1, muxer.packetCount)) : 0
        let index = Int64(muxer.packetCount + Int(inFlight)) * 24 + 8192
        return (muxer.payloadBytes + inFlight * average + index) * 102 / 100
    }

    private func stopError(_ code: CaptureError.Code, _ message: String) -> CaptureError {
        var error = CaptureError(code, message, path: configuration.url.path)
        error.recordingSuccessfullyFinished = true
        return error
    }

    /// Ends the recording cleanly: flushes the encoders, writes the index, defragments.
    private func finish(_ reason: CaptureError?) throws(CaptureError) {
        guard !finished else { return }
        guard timeline.origin != nil else {
            // Stopped before a single sample arrived: no movie, and no empty file left behind.
            onEvent(.willFinish)
            muxer.closeFile()
            unlink(muxer.path)
            complete(reason ?? CaptureError(.invalidState, "the recording ended before any frame was captured", path: muxer.path))
            return
        }
        onEvent(.willFinish)
        var error = reason
        if error == nil, let stop = stopRequest {
            switch stop.reason {
            case .requested: break
            case .sessionStopped:
                error = stopError(.sessionStopped, "the recording ended because the session stopped running")
            case .deviceLost(let why):
                error = stopError(.deviceDisconnected, "the recording ended because a device went away (\(why))")
            }
        }
        // Audio that lies within the video is written; a short tail of silence makes audio end
        // with the last frame when the microphone was behind.
        if let end = videoEnd, let encoder = audioEncoder {
            try flushAudio(upTo: end)
            let rate = Int32(encoder.sampleRate)
            if configuration.audio?.format.sampleRate == Int(rate) {
                let padding = placer.padding(to: timeline.filePosition(of: end, rate: rate), rate: rate)
                if padding > 0 {
                    try encoder.appendSilence(frames: Int(padding), write: muxer.write)
                }
            }
        }
        pendingAudio.removeAll()
        try videoEncoder?.encode(nil, pts: 0, duration: 0, write: muxer.write)
        if let encoder = audioEncoder {
            try encoder.finish(write: muxer.write)
        }
        try muxer.finish()
        if configuration.fragmentInterval != nil, configuration.container != .mkv {
            try MovieDefragmenter.defragment(path: muxer.path, container: configuration.container,
                                             timings: muxer.timings, timeBases: muxer.timeBases)
        }
        complete(error)
    }

    /// Ends the recording after a failure: the file is closed as it is. It is not finished
    /// (`recordingSuccessfullyFinished` stays false), but with fragments everything flushed
    /// before the failure stays playable.
    private func abort(_ failure: CaptureError) {
        guard !finished else { return }
        onEvent(.willFinish)
        var error = failure
        if configuration.fragmentInterval != nil {
            muxer.closeFileDroppingPartialWrite()
            error.message += "; the file plays up to the last fragment written"
        } else {
            muxer.closeFile()
        }
        complete(error)
    }

    private func complete(_ error: CaptureError?) {
        finished = true
        queue.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: muxer.path)[.size] as? Int64) ?? nil
        progress.withLock { $0.fileSize = size ?? $0.fileSize }
        onEvent(.finished(error))
    }

    /// Changes the video bit rate from the next frame on, which is a keyframe (from any thread).
    func setVideoBitRate(_ bits: Int) { requestedBitRate.withLock { $0 = bits } }

    /// Ends the encoder thread without finishing the file (the output went away).
    func cancel() {
        queue.close()
        worker?.stop()
    }
}
