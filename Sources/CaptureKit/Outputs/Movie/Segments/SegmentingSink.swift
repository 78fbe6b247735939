internal import CFFmpeg
import Dispatch
import Foundation
import Synchronization

/// The segmented recording's side of a ``MovieRecording``: its packets go into one movie file
/// after another, each cut at a boundary of ``MovieSegmentation`` — at the first video
/// keyframe at or after it (the recording is asked for one there; a camera's packets stored as
/// they came are cut at their next keyframe). Sound is cut at the same time, packet by packet:
/// packets before the cut end the old segment, the others start the new one, so no sample is
/// in two segments and none in neither. Each segment is written in fragments (a crash leaves it
/// playable) and, once cut, made an ordinary file, indexed and the folder's retention applied,
/// on a queue of its own so the encoder never waits for a rewrite. Used on the recording's
/// encoder thread, but for ``setOrigin(_:)``.
final class SegmentingSink: MovieSink, @unchecked Sendable {
    // Unchecked Sendable: state confined to the recording's encoder thread; the origin behind a Mutex.
    private struct Segment {
        let file: PacketClip
        let startDate: Date
        var videoFrames = 0
    }

    private let folder: SegmentFolder
    private let container: MovieMuxer.Container
    private let fragmentInterval: MediaTime
    private let frameDuration: MediaTime
    /// Told of each segment: on the encoder thread as it starts or fails, on the finishing
    /// queue as it is finished or deleted.
    private let onEvent: @Sendable (MovieSegmentEvent) -> Void
    /// The capture time of the recording's time zero, once its first frame is in.
    private let origin = Mutex<MediaTime?>(nil)
    /// The segment being written, which retention spares.
    private let writing = Mutex<URL?>(nil)
    /// Unix nanoseconds at session-clock zero: what turns capture times into wall-clock times.
    private let wallZero = SessionWallClock.current().unixNanosecondsAtSessionZero
    private let finishing = DispatchQueue(label: "CaptureKit.segments", qos: .utility)
    private var tracks = PacketClip.Tracks()
    private var metadata = MovieMetadata()
    private var current: Segment?
    /// The file time the open segment ends at, once the origin is known.
    private var boundary: MediaTime?
    /// The file time of the next frame to be made a keyframe: the boundary after the last one
    /// asked for (the encoder's frames go in ahead of its packets coming out, so this runs
    /// ahead of ``boundary``).
    private var keyframeBoundary: MediaTime?
    /// Sound at or after the boundary, held until the cut says which segment it belongs to.
    private var heldAudio: [HeldPacket] = []

    /// Sound held for a cut that does not come (a camera with no keyframe for this many of its
    /// packets, about 13 s of AAC at 48 kHz) goes to the open segment instead.
    private static let heldAudioLimit = 600
    /// A cut whose sound is behind (a microphone later than the camera): the keyframe it starts
    /// at and the video packets after it, held with the sound until sound reaches the keyframe,
    /// so that sound from before it still goes to the segment the cut closes.
    private var waitingCut: [HeldPacket] = []
    /// The start of the last sound packet seen: once it reaches a waiting cut's keyframe, no
    /// sound from before the cut can come any more.
    private var lastAudioTime = MediaTime.negativeInfinity
    /// How far past its keyframe a cut waits for its sound at most, and with how many packets
    /// (a microphone that went away, or one further behind): then it is made, and sound that
    /// comes later for the old segment is left out.
    private static let soundWait = MediaTime(value: 3, timescale: 1)
    private static let waitingCutLimit = 800

    init(folder: SegmentFolder, container: MovieMuxer.Container, frameDuration: MediaTime, onEvent: @escaping @Sendable (MovieSegmentEvent) -> Void) {
        self.folder = folder
        self.container = container
        // As a movie recording's: a crash loses at most an eighth of a second of a segment
        // (plus what the encoder holds).
        fragmentInterval = MediaTime(value: 1, timescale: 8)
        self.frameDuration = frameDuration
        self.onEvent = onEvent
    }

    /// Sets the capture time of the recording's time zero (its `started(at:)`).
    func setOrigin(_ time: MediaTime) { origin.withLock { $0 = time } }

    // MARK: MovieSink

    let path = ""
    let needsGlobalHeader = true
    private(set) var payloadBytes: Int64 = 0
    private(set) var packetCount = 0
    private(set) var videoPacketCount = 0
    var timings: [[MovieMuxer.PacketTiming]] { [] }
    var timeBases: [AVRational] { [] }

    func addVideo(_ encoder: VideoEncoder, rotation: Double, mirrored: Bool) throws(CaptureError) {
        tracks.setVideo(.encoder(encoder), rotation: rotation, mirrored: mirrored)
    }

    func addVideo(copying parameters: CodecParameters, rotation: Double, mirrored: Bool) throws(CaptureError) {
        tracks.setVideo(.copying(parameters), rotation: rotation, mirrored: mirrored)
    }

    func addAudio(_ encoder: AudioEncoder) throws(CaptureError) { tracks.audio = encoder }

    func start(metadata: MovieMetadata, startDate: Date, fragmentInterval: MediaTime?) throws(CaptureError) {
        self.metadata = metadata
    }

    func wantsKeyframe(at fileTime: MediaTime) -> Bool {
        if keyframeBoundary == nil { keyframeBoundary = self.boundary(after: .zero) }
        guard let due = keyframeBoundary, fileTime >= due else { return false }
        keyframeBoundary = self.boundary(after: fileTime)
        return true
    }

    func write(_ encoded: EncodedPacket) throws(CaptureError) {
        guard let packet = HeldPacket(encoded) else { return }
        payloadBytes += Int64(packet.size)
        packetCount += 1
        if packet.track == .video { videoPacketCount += 1 }
        if packet.track == .audio { lastAudioTime = max(lastAudioTime, packet.time) }
        try place(packet)
    }

    /// Puts a packet where it belongs: the open segment, the sound held at a boundary, a
    /// waiting cut, or a new segment it starts.
    private func place(_ packet: HeldPacket) throws(CaptureError) {
        let cutsHere = tracks.video == nil ? packet.track == .audio : packet.isVideoKeyframe
        if let keyframe = waitingCut.first {
            // The cut sorts the held sound between the two segments by the keyframe's time.
            if packet.track == .audio { heldAudio.append(packet) } else { waitingCut.append(packet) }
            let soundReached = lastAudioTime >= keyframe.time
            if soundReached || packet.time - keyframe.time > Self.soundWait || waitingCut.count + heldAudio.count > Self.waitingCutLimit {
                if !soundReached {
                    CaptureLog.emit(.warning, "capturekit", "segments: the sound is more than \(Self.soundWait.seconds) s behind the picture; "
                                    + "sound from before the cut that comes later is left out of \(current?.file.url.lastPathComponent ?? "the segment")")
                }
                try makeWaitingCut()
            }
            return
        }
        guard current != nil else {
            if cutsHere {
                try open(at: packet, isFirst: true)
                try putHeldAudio(before: .positiveInfinity)
            } else if packet.track == .audio {
                // Sound encoded ahead of the first picture's packet (the encoder's lookahead).
                heldAudio.append(packet)
                if heldAudio.count > Self.heldAudioLimit { heldAudio.removeFirst() }
            }
            return
        }
        if let boundary = currentBoundary(), packet.time >= boundary {
            if cutsHere {
                if tracks.video != nil, tracks.audio != nil, lastAudioTime < packet.time {
                    waitingCut = [packet]
                } else {
                    try cut(at: packet)
                }
                return
            }
            if packet.track == .audio {
                heldAudio.append(packet)
                if heldAudio.count > Self.heldAudioLimit { try putHeldAudio(before: .positiveInfinity) }
                return
            }
        }
        try put(packet)
    }

    func finish() throws(CaptureError) {
        try makeWaitingCut()
        try putHeldAudio(before: .positiveInfinity)
        try close(next: nil)
        finishing.sync {}
    }

    func closeFile() { abandon(CaptureError(.internalError, "the recording under the segment ended")) }

    func closeFileDroppingPartialWrite() { abandon(CaptureError(.fileError, "the recording failed while writing the segment")) }

    // MARK: Segments

    /// The open segment's end in file time; nil before the origin is known.
    private func currentBoundary() -> MediaTime? {
        if let boundary { return boundary }
        guard let start = current?.file.start else { return nil }
        boundary = self.boundary(after: start)
        return boundary
    }

    /// The first boundary after file time `time`: the next multiple of the duration on the wall
    /// clock (or from the recording's start); nil before the origin is known.
    private func boundary(after time: MediaTime) -> MediaTime? {
        guard let origin = origin.withLock({ $0 }), let nanoseconds = time.nanoseconds, let originNanoseconds = origin.nanoseconds,
              let length = folder.segmentation.duration.nanoseconds, length > 0 else { return nil }
        let base = folder.segmentation.alignsToClock ? wallZero + originNanoseconds : 0
        // A frame within a millisecond of a boundary starts that segment.
        let next = ((base + nanoseconds + 1_000_000) / length + 1) * length
        return MediaTime(value: next - base, timescale: 1_000_000_000)
    }

    private func wallDate(of fileTime: MediaTime) -> Date {
        let nanoseconds = wallZero + (origin.withLock { $0 }?.nanoseconds ?? 0) + (fileTime.nanoseconds ?? 0)
        return Date(timeIntervalSince1970: Double(nanoseconds) / 1e9)
    }

    /// Opens a segment at `first`; the recording's first keeps the sound before its first
    /// frame (the audio encoder's priming), as a movie of one file does.
    private func open(at first: HeldPacket, isFirst: Bool = false) throws(CaptureError) {
        let date = wallDate(of: first.time)
        let url = folder.name(startingAt: date)
        let file = try PacketClip(url: url, container: container, tracks: tracks, metadata: metadata, fragmentInterval: fragmentInterval,
                                  startingAt: first, keepingEarlierSound: isFirst)
        current = Segment(file: file, startDate: date)
        writing.withLock { $0 = url }
        boundary = nil
        let startTime = first.time + (origin.withLock { $0 } ?? .zero)
        onEvent(.started(url: url, startTime: startTime))
        try put(first)
    }

    private func put(_ packet: HeldPacket) throws(CaptureError) {
        guard var segment = current else { return }
        try segment.file.put(packet)
        if packet.track == .video { segment.videoFrames += 1 }
        current = segment
    }

    /// Sound held at the boundary that lies before `time` into the open segment; the rest stays
    /// held for the next.
    private func putHeldAudio(before time: MediaTime) throws(CaptureError) {
        let (before, after) = (heldAudio.filter { $0.time < time }, heldAudio.filter { $0.time >= time })
        heldAudio = after
        for packet in before { try put(packet) }
    }

    private func cut(at keyframe: HeldPacket) throws(CaptureError) {
        try putHeldAudio(before: keyframe.time)
        try close(next: keyframe.time)
        let rest = heldAudio
        heldAudio = []
        try open(at: keyframe)
        for packet in rest { try put(packet) }
    }

    /// Makes the cut that waited for its sound, then writes what came after its keyframe.
    private func makeWaitingCut() throws(CaptureError) {
        guard let keyframe = waitingCut.first else { return }
        let after = waitingCut.dropFirst()
        waitingCut = []
        try cut(at: keyframe)
        for packet in after { try place(packet) }
    }

    /// Ends the open segment (its last fragment, on this thread) and has the finishing queue
    /// make it an ordinary file, index it and apply retention; `next` is where the next one
    /// starts, which its duration reaches to.
    private func close(next: MediaTime?) throws(CaptureError) {
        guard let segment = current else { return }
        current = nil
        let file = segment.file
        let defragmenting: PacketClip.Defragmenting
        do throws(CaptureError) {
            defragmenting = try file.finish()
        } catch {
            onEvent(.failed(url: file.url, error: error))
            throw error
        }
        let end = next ?? (file.lastVideo.isNumeric ? file.lastVideo + frameDuration : file.start)
        let duration = end - file.start
        let startTime = file.start + (origin.withLock { $0 } ?? .zero)
        let folder = folder, onEvent = onEvent
        let url = file.url, startDate = segment.startDate, frames = segment.videoFrames
        finishing.async {
            do throws(CaptureError) {
                try defragmenting.run()
                let size = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int64) ?? 0
                let finished = MovieSegment(url: url, startDate: startDate, startTime: startTime, duration: duration,
                                            videoFrameCount: frames, fileSize: size)
                try folder.index(finished)
                onEvent(.finished(finished))
            } catch {
                onEvent(.failed(url: url, error: error))
            }
            for deleted in folder.applyRetention(sparing: self.writing.withLock { $0 }) { onEvent(.deleted(url: deleted)) }
        }
    }

    private func abandon(_ error: CaptureError) {
        guard let segment = current else { return }
        current = nil
        segment.file.abandon()
        onEvent(.failed(url: segment.file.url, error: error))
        finishing.sync {}
    }
}
