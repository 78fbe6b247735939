internal import CFFmpeg
import Foundation

/// A movie file of an endless encode's packets from one of its video keyframes on, every
/// timestamp moved back so the file starts at zero: a pre-roll output's clip, a recording a
/// stream output starts while it streams. Written in fragments (a crash leaves what was written
/// playable) and made an ordinary file when finished. Used on the encode's thread.
final class PacketClip {
    /// Where a clip's video track comes from.
    enum VideoSource {
        /// An open encoder's packets.
        case encoder(VideoEncoder)
        /// A camera's packets as it coded them (pass-through).
        case copying(CodecParameters)
    }

    /// The tracks an endless encode's clips are made with, as its sink was told them
    /// (`MovieSink.addVideo`, `addAudio`).
    struct Tracks {
        var video: VideoSource?
        var rotation = 0.0
        var mirrored = false
        var audio: AudioEncoder?

        /// Takes the video track a sink was given.
        mutating func setVideo(_ source: VideoSource, rotation: Double, mirrored: Bool) {
            video = source
            self.rotation = rotation
            self.mirrored = mirrored
        }
    }

    let url: URL
    /// The first frame's presentation time, on the encode's timeline.
    let start: MediaTime
    /// The last video frame's presentation time written so far; `-infinity` before any.
    private(set) var lastVideo = MediaTime.negativeInfinity
    private let muxer: MovieMuxer
    /// The first packet's timestamp in its time base: what every packet is moved back by.
    private let offset: Int64
    private let offsetTimeBase: AVRational
    /// Whether sound from before the first frame is written too (the start of a recording: the
    /// encoder's priming).
    private let keepsEarlierSound: Bool

    /// Opens `url` for the encode's `tracks`, to start at `first` (a video keyframe's packet, or
    /// the first packet of sound alone), which the first ``put(_:)`` writes; sound from before it
    /// is left out unless `keepingEarlierSound`.
    init(url: URL, container: MovieMuxer.Container, tracks: Tracks, metadata: MovieMetadata, fragmentInterval: MediaTime,
         startingAt first: HeldPacket, keepingEarlierSound: Bool = false) throws(CaptureError) {
        self.url = url
        keepsEarlierSound = keepingEarlierSound
        muxer = try MovieMuxer(path: url.path, container: container)
        do throws(CaptureError) {
            switch tracks.video {
            case .encoder(let encoder): try muxer.addVideo(encoder, rotation: tracks.rotation, mirrored: tracks.mirrored)
            case .copying(let parameters): try muxer.addVideo(copying: parameters, rotation: tracks.rotation, mirrored: tracks.mirrored)
            case nil: break
            }
            if let audio = tracks.audio { try muxer.addAudio(audio) }
            try muxer.start(metadata: metadata, startDate: Date(), fragmentInterval: fragmentInterval)
        } catch {
            muxer.closeFile()
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        start = first.time
        offset = first.pts
        offsetTimeBase = first.timeBase
    }

    /// Writes `packet`, moved back to the clip's time zero; a packet from before the clip's
    /// start (sound encoded ahead of the keyframe) is left out, unless it is sound the clip keeps.
    func put(_ packet: HeldPacket) throws(CaptureError) {
        guard packet.time >= start || keepsEarlierSound && packet.track == .audio else { return }
        try packet.lend(shiftedBack: av_rescale_q(offset, offsetTimeBase, packet.timeBase)) { (lent) throws(CaptureError) in try muxer.write(lent) }
        if packet.track == .video { lastVideo = packet.time }
    }

    /// Writes the last fragment and closes the file: quick, on the encode's thread. The file
    /// plays from then on; the job returned turns it into an ordinary, seekable movie, which
    /// may take a while and runs on any thread.
    func finish() throws(CaptureError) -> Defragmenting {
        try muxer.finish()
        return Defragmenting(path: url.path, container: muxer.container, timings: muxer.timings, timeBases: muxer.timeBases)
    }

    /// Rewrites a finished clip unfragmented (``MovieDefragmenter``).
    struct Defragmenting: Sendable {
        let path: String
        let container: MovieMuxer.Container
        let timings: [[MovieMuxer.PacketTiming]]
        let timeBases: [AVRational]

        func run() throws(CaptureError) {
            try MovieDefragmenter.defragment(path: path, container: container, timings: timings, timeBases: timeBases)
        }
    }

    /// Closes the file after a failure, cutting off what the failure left half written.
    func abandon() { muxer.closeFileDroppingPartialWrite() }
}
