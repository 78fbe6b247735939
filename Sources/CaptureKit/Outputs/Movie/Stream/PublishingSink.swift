internal import CFFmpeg
import Foundation
import Synchronization

/// The stream output's side of an endless ``MovieRecording``: every packet of its one encode
/// goes to each destination's ``StreamPublisher`` (a reference, not a copy), to the local
/// recording of the whole run, if there is one, and to a recording started while streaming
/// (a ``PacketClip`` from the next keyframe on). Used on the recording's encoder thread, but
/// for ``setOrigin(_:)``, ``statistics`` and the clip's requests.
final class PublishingSink: MovieSink, @unchecked Sendable {
    // Unchecked Sendable: state confined to the recording's encoder thread; the publishers are Sendable.
    struct Settings: Sendable {
        var destinations: [StreamDestination]
        var keyframeInterval: MediaTime
        var maximumDelay: MediaTime
        var reconnection: StreamPublisher.Reconnection
        var recordingURL: URL?
        /// Lower the bit rate while a link is congested (``BitRateGovernor``).
        var adaptsBitRate: Bool
        var videoBitRate: Int
    }

    /// What the output's thread asked of the recording started while streaming, and whether
    /// one is under way (asked for, and not yet finished).
    private struct ClipRequests {
        var start: URL?
        var stop = false
        var active: URL?
    }

    private let settings: Settings
    private let onEvent: @Sendable (StreamEvent) -> Void
    private var recording: MovieMuxer?
    private let clipRequests = Mutex(ClipRequests())
    /// A recording asked for that waits for its keyframe, and the one being written.
    private var clipWaiting: URL?
    private var clip: PacketClip?
    /// What a recording started while streaming is made with.
    private var clipTracks = PacketClip.Tracks()
    private var metadata = MovieMetadata()
    private var tracks: [StreamTrack] = []
    private var running: [StreamPublisher] = []
    private let governor: Mutex<BitRateGovernor>
    private var lastReading = MonotonicClock.now()
    /// Switches the encode to a bit rate (the output's recording sets it).
    private let changeBitRate: @Sendable (Int) -> Void

    /// Creates the recording's file, if there is one: `.fileError` when it cannot be.
    init(_ settings: Settings, changeBitRate: @escaping @Sendable (Int) -> Void,
         onEvent: @escaping @Sendable (StreamEvent) -> Void) throws(CaptureError) {
        self.settings = settings
        self.onEvent = onEvent
        self.changeBitRate = changeBitRate
        governor = Mutex(BitRateGovernor(configured: settings.videoBitRate))
        if let url = settings.recordingURL {
            guard let container = MovieMuxer.Container(url: url) else {
                throw CaptureError(.unsupportedFormat, "\(url.lastPathComponent): record to a .mov, .mp4 or .mkv file", path: url.path)
            }
            recording = try MovieMuxer(path: url.path, container: container)
        }
    }

    /// Each destination's statistics.
    var statistics: [StreamStatistics] { running.map(\.statistics) }

    /// Sets the capture time of the stream's time zero.
    func setOrigin(_ origin: MediaTime) { running.forEach { $0.setOrigin(origin) } }

    // MARK: MovieSink

    var path: String { "" }
    // FLV and QuickTime want the codecs' headers in extradata; MPEG-TS and RTP repeat them in band.
    let needsGlobalHeader = true
    private(set) var payloadBytes: Int64 = 0
    private(set) var packetCount = 0
    private(set) var videoPacketCount = 0
    var timings: [[MovieMuxer.PacketTiming]] { [] }
    var timeBases: [AVRational] { [] }

    func addVideo(_ encoder: VideoEncoder, rotation: Double, mirrored: Bool) throws(CaptureError) {
        try recording?.addVideo(encoder, rotation: rotation, mirrored: mirrored)
        clipTracks.setVideo(.encoder(encoder), rotation: rotation, mirrored: mirrored)
        tracks.append(StreamTrack(track: .video, parameters: try CodecParameters(encoder.context), timeBase: VideoEncoder.timeBase))
    }

    func addAudio(_ encoder: AudioEncoder) throws(CaptureError) {
        try recording?.addAudio(encoder)
        clipTracks.audio = encoder
        tracks.append(StreamTrack(track: .audio, parameters: try CodecParameters(encoder.context), timeBase: encoder.context.pointee.time_base))
    }

    func start(metadata: MovieMetadata, startDate: Date, fragmentInterval: MediaTime?) throws(CaptureError) {
        self.metadata = metadata
        // The recording is fragmented while written (a crash leaves it playable), every 1/8 s
        // as a movie file output's with a one-second interval.
        try recording?.start(metadata: metadata, startDate: startDate, fragmentInterval: MediaTime(value: 125_000, timescale: 1_000_000))
        running = settings.destinations.map { destination in
            StreamPublisher(.init(destination: destination, tracks: tracks, keyframeInterval: settings.keyframeInterval,
                                  maximumDelay: settings.maximumDelay, reconnection: settings.reconnection), onEvent: onEvent)
        }
        running.forEach { $0.begin() }
    }

    /// Records the packet and queues it for every destination. A recording's failure (its disk
    /// full) ends the recording, never the streams.
    func write(_ encoded: EncodedPacket) throws(CaptureError) {
        packetCount += 1
        if encoded.track == .video { videoPacketCount += 1 }
        payloadBytes += Int64(encoded.packet.pointee.size)
        // Held first: the recording's muxer rescales the lent packet in place, the held one
        // keeps the encoder's timing (and shares the coded bytes, no copy).
        guard let packet = HeldPacket(encoded) else { return }
        if let recording {
            do throws(CaptureError) {
                try recording.write(encoded)
            } catch {
                recording.closeFileDroppingPartialWrite()
                self.recording = nil
                onEvent(.recordingFinished(URL(fileURLWithPath: recording.path), error: error))
            }
        }
        for publisher in running { publisher.enqueue(packet) }
        record(packet)
        if settings.adaptsBitRate { governBitRate() }
    }

    // MARK: Recording while streaming

    /// Asks for a recording into `url` from the next keyframe on; false while one is under way.
    func startClip(_ url: URL) -> Bool {
        clipRequests.withLock { requests in
            guard requests.active == nil else { return false }
            requests.active = url
            requests.start = url
            requests.stop = false
            return true
        }
    }

    /// Asks the recording under way to end with the next packet.
    func stopClip() { clipRequests.withLock { if $0.active != nil { $0.stop = true } } }

    /// The recording asked for and not yet finished.
    var clipURL: URL? { clipRequests.withLock { $0.active } }

    /// Feeds the recording started while streaming: it opens at a video keyframe (at the first
    /// packet of a stream of sound alone). Its failure (a full disk) ends it, never the streams.
    private func record(_ packet: HeldPacket) {
        let (start, stop) = clipRequests.withLock { requests in
            defer {
                requests.start = nil
                requests.stop = false
            }
            return (requests.start, requests.stop)
        }
        if let start { clipWaiting = start }
        if stop {
            clipWaiting.map { finishClip(url: $0, error: CaptureError(.invalidState, "the recording was stopped before its first keyframe")) }
            clipWaiting = nil
            endClip(failure: nil, synchronously: false)
            return
        }
        if let url = clipWaiting, packet.isVideoKeyframe || clipTracks.video == nil {
            clipWaiting = nil
            do throws(CaptureError) {
                clip = try PacketClip(url: url, container: MovieMuxer.Container(url: url) ?? .mov, tracks: clipTracks, metadata: metadata,
                                      fragmentInterval: MediaTime(value: 125_000, timescale: 1_000_000), startingAt: packet)
                onEvent(.recordingStarted(url))
            } catch {
                finishClip(url: url, error: error)
                return
            }
        }
        guard let clip else { return }
        do throws(CaptureError) {
            try clip.put(packet)
        } catch {
            endClip(failure: error, synchronously: false)
        }
    }

    /// Ends the recording being written: finished (made an ordinary file on another thread,
    /// unless `synchronously`: the stream is ending), or closed as it is after `failure`.
    private func endClip(failure: CaptureError?, synchronously: Bool) {
        guard let open = clip else { return }
        clip = nil
        if let failure {
            open.abandon()
            finishClip(url: open.url, error: failure)
            return
        }
        let defragmenting: PacketClip.Defragmenting
        do throws(CaptureError) {
            defragmenting = try open.finish()
        } catch {
            finishClip(url: open.url, error: error)
            return
        }
        let url = open.url
        let finishing: @Sendable () -> Void = { [self] in
            var error: CaptureError?
            do throws(CaptureError) { try defragmenting.run() } catch let failure { error = failure }
            finishClip(url: url, error: error)
        }
        if synchronously { finishing() } else { DispatchQueue.global(qos: .utility).async(execute: finishing) }
    }

    /// Reports the recording's end and lets another start.
    private func finishClip(url: URL, error: CaptureError?) {
        clipRequests.withLock { if $0.active == url { $0.active = nil } }
        onEvent(.recordingFinished(url, error: error))
    }

    /// The application's new bit rate: the governor's ceiling from now on.
    func setConfiguredBitRate(_ bits: Int) { governor.withLock { $0.reset(configured: bits) } }

    /// Once a second: the fullest queue tells the governor whether to step the bit rate.
    private func governBitRate() {
        let now = MonotonicClock.now()
        guard now - lastReading >= MediaTime(value: 1, timescale: 1) else { return }
        lastReading = now
        let fullness = running.map(\.fullness).max() ?? 0
        guard let rate = governor.withLock({ $0.observe(fullness: fullness) }) else { return }
        changeBitRate(rate)
        onEvent(.bitRateChanged(rate))
    }

    /// Ends every stream (each drains for at most 2 s, all at once) and finishes the recording.
    func finish() throws(CaptureError) {
        endStreams(drainTime: MediaTime(value: 2, timescale: 1))
        endClip(failure: nil, synchronously: true)
        clipWaiting.map { finishClip(url: $0, error: CaptureError(.sessionStopped, "the stream ended before the recording's first keyframe")) }
        clipWaiting = nil
        guard let recording else { return }
        self.recording = nil
        var failure: CaptureError?
        do throws(CaptureError) {
            try recording.finish()
            try MovieDefragmenter.defragment(path: recording.path, container: recording.container,
                                             timings: recording.timings, timeBases: recording.timeBases)
        } catch {
            failure = error
        }
        onEvent(.recordingFinished(URL(fileURLWithPath: recording.path), error: failure))
    }

    func closeFile() {
        endStreams(drainTime: .zero)
        recording?.closeFile()
        abandonClip()
    }

    func closeFileDroppingPartialWrite() {
        endStreams(drainTime: .zero)
        recording?.closeFileDroppingPartialWrite()
        abandonClip()
    }

    /// The encode under the recording started while streaming failed: so does the recording.
    private func abandonClip() {
        let failure = CaptureError(.internalError, "the stream's encode failed")
        endClip(failure: failure, synchronously: true)
        clipWaiting.map { finishClip(url: $0, error: failure) }
        clipWaiting = nil
    }

    private func endStreams(drainTime: MediaTime) {
        let group = DispatchGroup()
        for publisher in running {
            DispatchQueue.global().async(group: group) { publisher.finish(drainTime: drainTime) }
        }
        group.wait()
    }
}
