internal import CFFmpeg
import Foundation
import Synchronization

/// The pre-roll output's side of an endless ``MovieRecording``: every packet goes into a
/// ``PacketRing``; a trigger opens a clip — a movie file of its own — that starts at the ring's
/// keyframe at or before (trigger − pre-roll), then takes every packet until (trigger +
/// post-roll), later triggers pushing that end on, up to a longest clip. Clips are fragmented
/// while written (a crash leaves what was written playable) and made ordinary files when done.
/// Used on the recording's encoder thread, but for ``trigger(_:)`` and ``origin``.
final class PreRollSink: MovieSink, @unchecked Sendable {
    // Unchecked Sendable: state confined to the recording's encoder thread; triggers and the origin behind a Mutex.
    struct Settings: Sendable {
        var preRoll: MediaTime
        var postRoll: MediaTime
        var longestClip: MediaTime
        var folder: URL
        var fragmentInterval: MediaTime
        /// One video frame's duration (the clip's last frame lasts that long).
        var frameDuration: MediaTime
    }

    /// A request for a clip: why, and the capture time it is about.
    struct Trigger: Sendable {
        var reason: String
        var time: MediaTime
    }

    /// What the sink tells its output, on the encoder thread.
    enum Event: Sendable {
        case started(url: URL, reason: String, trigger: MediaTime, start: MediaTime)
        case finished(url: URL, reason: String, trigger: MediaTime, start: MediaTime, duration: MediaTime, error: CaptureError?)
    }

    private struct Clip {
        let file: PacketClip
        let reason: String
        /// File times (the recording's): the trigger, where the clip ends.
        let trigger: MediaTime
        var end: MediaTime
    }

    private struct Shared {
        var triggers: [Trigger] = []
        /// The capture time of the recording's time zero, once its first frame is in.
        var origin: MediaTime?
        var bufferedBytes = 0
    }

    let settings: Settings
    private let onEvent: @Sendable (Event) -> Void
    private let shared = Mutex(Shared())
    private var ring: PacketRing
    private var clip: Clip?
    private var tracks = PacketClip.Tracks()
    private var metadata = MovieMetadata()

    init(_ settings: Settings, maximumBytes: Int, onEvent: @escaping @Sendable (Event) -> Void) {
        self.settings = settings
        self.onEvent = onEvent
        ring = PacketRing(span: settings.preRoll, maximumBytes: maximumBytes)
    }

    /// Asks for a clip around `trigger` (from any thread): taken with the next packet.
    func trigger(_ trigger: Trigger) { shared.withLock { $0.triggers.append(trigger) } }

    /// Sets the capture time of the recording's time zero (its `started(at:)`).
    func setOrigin(_ origin: MediaTime) { shared.withLock { $0.origin = origin } }

    /// Coded bytes the ring holds now.
    var bufferedBytes: Int { shared.withLock { $0.bufferedBytes } }

    // MARK: MovieSink

    let path = ""
    // Clips are QuickTime files, whose encoders put their headers in extradata.
    let needsGlobalHeader = true
    private(set) var payloadBytes: Int64 = 0
    private(set) var packetCount = 0
    private(set) var videoPacketCount = 0
    var timings: [[MovieMuxer.PacketTiming]] { [] }
    var timeBases: [AVRational] { [] }

    func addVideo(_ encoder: VideoEncoder, rotation: Double, mirrored: Bool) throws(CaptureError) {
        tracks.setVideo(.encoder(encoder), rotation: rotation, mirrored: mirrored)
    }

    func addAudio(_ encoder: AudioEncoder) throws(CaptureError) { tracks.audio = encoder }

    func start(metadata: MovieMetadata, startDate: Date, fragmentInterval: MediaTime?) throws(CaptureError) {
        self.metadata = metadata
    }

    /// Keeps the packet and feeds the open clip. A clip's failure (its disk full) fails that
    /// clip, never the recording under it.
    func write(_ encoded: EncodedPacket) throws(CaptureError) {
        guard let packet = HeldPacket(encoded) else { return }
        payloadBytes += Int64(packet.size)
        packetCount += 1
        if packet.track == .video { videoPacketCount += 1 }
        ring.append(packet)
        let (triggers, origin) = shared.withLock { shared -> ([Trigger], MediaTime?) in
            shared.bufferedBytes = ring.bytes
            guard shared.origin != nil else { return ([], nil) }
            defer { shared.triggers.removeAll() }
            return (shared.triggers, shared.origin)
        }
        let hadClip = clip != nil
        if let origin {
            for trigger in triggers { take(trigger, fileTime: trigger.time - origin) }
        }
        // A clip opened just now took this packet from the ring already.
        guard hadClip, let open = clip else { return }
        if packet.track == .video, packet.time >= open.end {
            close(nil)
            return
        }
        guard packet.time < open.end else { return }
        do throws(CaptureError) {
            try open.file.put(packet)
        } catch {
            close(error)
        }
    }

    func finish() throws(CaptureError) { close(nil) }

    func closeFile() { close(CaptureError(.internalError, "the recording under the clip failed")) }

    func closeFileDroppingPartialWrite() { closeFile() }

    // MARK: Clips

    /// Opens a clip for `trigger` at `fileTime`, or pushes the open one's end on.
    private func take(_ trigger: Trigger, fileTime: MediaTime) {
        if var open = clip {
            open.end = min(max(open.end, fileTime + settings.postRoll), open.file.start + settings.longestClip)
            clip = open
            return
        }
        guard let first = ring.start(atOrBefore: fileTime - settings.preRoll), tracks.video != nil else { return }
        let keyframe = ring.packets[first]
        let url = DatedMovieName.next(in: settings.folder, prefix: "clip")
        do throws(CaptureError) {
            var clipMetadata = metadata
            clipMetadata.comment = trigger.reason
            let file = try PacketClip(url: url, container: .mov, tracks: tracks, metadata: clipMetadata,
                                      fragmentInterval: settings.fragmentInterval, startingAt: keyframe)
            let start = file.start
            let open = Clip(file: file, reason: trigger.reason, trigger: fileTime, end: min(fileTime + settings.postRoll, start + settings.longestClip))
            clip = open
            onEvent(.started(url: url, reason: trigger.reason, trigger: trigger.time, start: start + (trigger.time - fileTime)))  // capture times
            for packet in ring.packets[first...] {
                if packet.track == .video, packet.time >= open.end { break }
                if packet.track == .audio, packet.time >= open.end { continue }
                try file.put(packet)
            }
            if ring.packets.last.map({ $0.track == .video && $0.time >= open.end }) == true { close(nil) }
        } catch {
            clip = nil
            try? FileManager.default.removeItem(at: url)
            onEvent(.finished(url: url, reason: trigger.reason, trigger: trigger.time, start: trigger.time, duration: .zero, error: error))
        }
    }

    /// Finishes the open clip (writes its index, makes it an ordinary file), or closes it as it
    /// is after `failure`.
    private func close(_ failure: CaptureError?) {
        guard let open = clip else { return }
        clip = nil
        let origin = shared.withLock { $0.origin } ?? .zero
        var error = failure
        let file = open.file
        if failure == nil {
            do throws(CaptureError) {
                try file.finish().run()
            } catch let failed {
                error = failed
            }
        } else {
            file.abandon()
        }
        let duration = file.lastVideo.isNumeric ? file.lastVideo - file.start + settings.frameDuration : .zero
        onEvent(.finished(url: file.url, reason: open.reason, trigger: open.trigger + origin, start: file.start + origin,
                          duration: duration, error: error))
    }
}
