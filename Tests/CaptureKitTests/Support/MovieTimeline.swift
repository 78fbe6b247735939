import Foundation
import Testing
@testable import CaptureKit

/// A recorded movie's video track as its packet timestamps tell it (ffprobe): the frames the
/// file holds and the frame slots from its first frame to its last. A recording keeps capture
/// timestamps, so every packet lies a whole number of frame durations after the first; a packet
/// that does not is stamped with something other than its capture time. A slot with no packet
/// is a frame the device produced (or skipped) inside the recording that the file lacks: the
/// recording must have reported it in `droppedSampleCount`. How many slots are empty is the
/// machine's business; that each one was reported is the library's.
///
/// Track ends are read from the packets, not from ffprobe's stream durations: FFmpeg 5.1's
/// QuickTime demuxer derives those from decode times, which fall short of the last frame when
/// frames are missing just before it (the file's own edit lists are right).
struct MovieTimeline: CustomStringConvertible {
    /// The video packets' presentation times in seconds, sorted.
    let times: [Double]
    /// Where the first audio packet starts, in seconds; nil without audio.
    let audioStart: Double?
    /// Where the last audio packet ends, in seconds (its stated duration, which may include
    /// the codec's padding); nil without audio.
    let audioEnd: Double?
    /// One frame, in seconds.
    let frameDuration: Double
    /// How far a packet may lie from a whole number of frames: the container's time resolution
    /// (Matroska counts milliseconds; QuickTime and MP4 keep 90 kHz ticks).
    let tolerance: Double
    /// Each packet's slot: frame durations after the first packet.
    private(set) var slots: [Int] = []
    /// Packets that are not a whole number of frames after the first, or share a slot.
    private(set) var misplaced: [Double] = []

    /// Reads `path`'s video packets; `frameDuration` is the camera's frame duration.
    init(_ path: String, frameDuration: MediaTime) throws {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-show_entries", "packet=codec_type,pts_time,duration_time",
                                                    "-of", "csv=p=0", path])
        var video: [Double] = [], audioStart: Double?, audioEnd: Double?
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let pts = Double(fields[1]) else { continue }
            if fields[0] == "video" { video.append(pts) }
            if fields[0] == "audio" {
                audioStart = min(audioStart ?? .infinity, pts)
                audioEnd = max(audioEnd ?? -.infinity, pts + (Double(fields[2]) ?? 0))
            }
        }
        times = video.sorted()
        self.audioStart = audioStart
        self.audioEnd = audioEnd
        self.frameDuration = frameDuration.seconds
        tolerance = path.lowercased().hasSuffix(".mkv") ? 0.0011 : 0.0001
        guard let first = times.first else { return }
        for time in times {
            let slot = Int(((time - first) / self.frameDuration).rounded())
            if abs(time - first - Double(slot) * self.frameDuration) > tolerance || slot <= (slots.last ?? -1) {
                misplaced.append(time)
            }
            slots.append(slot)
        }
    }

    /// Frames in the file.
    var frames: Int { times.count }
    /// Slots from the first frame to the last, both included.
    var span: Int { (slots.last ?? -1) + 1 }
    /// Slots inside the span with no frame.
    var holes: Int { max(0, span - frames) }
    /// Where the first frame starts on the file's timeline, in seconds.
    var start: Double { times.first ?? .nan }
    /// Where the last frame ends, in seconds.
    var end: Double { start + Double(span) * frameDuration }
    /// Whether every packet sits on a slot of its own.
    var isExact: Bool { misplaced.isEmpty }

    /// Checks a finished recording against its file: the timestamps are capture times, the
    /// movie lasts exactly as long as its tracks' packets say, the output's frame count is the
    /// file's, every empty slot inside the file was reported dropped, at least `covering` slots
    /// (frames the test saw the device capture while the recording took them) are in the file
    /// or reported, and the file holds no more than `limit` slots (a maximum duration).
    /// With `tailDropsAllowed`, a file whose last frames were reported dropped may end before
    /// its audio by as many frames (an encoder that fell behind at the end).
    func expectAccounted(_ movie: RecordedMovie?, probe: ProbedMovie, covering: Int = 0, limit: Int? = nil, tailDropsAllowed: Bool = false,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(isExact, "\(self)", sourceLocation: sourceLocation)
        let tailDrops = tailDropsAllowed ? min(movie?.droppedSampleCount ?? 0, max(0, covering - frames)) : 0
        expectDurationMatches(probe, missingFrames: tailDrops, sourceLocation: sourceLocation)
        guard let movie else {
            Issue.record("the movie output reported no finished recording", sourceLocation: sourceLocation)
            return
        }
        let reported = movie.droppedSampleCount
        #expect(movie.videoFrameCount == frames, "the output wrote \(movie.videoFrameCount) frames, the file holds \(frames)",
                sourceLocation: sourceLocation)
        #expect(holes <= reported, "\(self): \(holes) frames missing inside the file, \(reported) reported dropped",
                sourceLocation: sourceLocation)
        #expect(frames + reported >= covering, "\(self) + \(reported) reported dropped cover fewer than the \(covering) frames captured",
                sourceLocation: sourceLocation)
        if let limit {
            #expect(span <= limit, "\(self): more than the \(limit) frames of the maximum duration", sourceLocation: sourceLocation)
        }
    }

    var description: String {
        "\(frames) frames in \(span) slots of \(String(format: "%.4f", frameDuration)) s from \(start) s"
            + (misplaced.isEmpty ? "" : "; not on a slot of their own: \(misplaced.prefix(8))")
    }

    /// Checks that the movie plays to its last frame (containers count milliseconds at best),
    /// with at most an audio tail of less than a frame beyond it (plus `missingFrames` reported
    /// dropped at the end).
    func expectDurationMatches(_ probe: ProbedMovie, missingFrames: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(probe.duration >= end - 0.0011 && probe.duration <= end + frameDuration * Double(1 + missingFrames),
                "the movie lasts \(probe.duration) s, its frames end at \(end) s, \(missingFrames) dropped at the end", sourceLocation: sourceLocation)
    }

    /// Checks that the audio and video tracks start and end within one video frame of each
    /// other (`probe` says where each starts: its edit list hides encoder priming).
    /// `missingFrames` frames the camera produced are not in the file (reported dropped, which
    /// ``expectAccounted(_:probe:covering:limit:sourceLocation:)`` checks): when they were the
    /// last ones, the video ends that much before the audio.
    func expectInSync(_ probe: ProbedMovie, missingFrames: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let video = try #require(probe.video, sourceLocation: sourceLocation), audio = try #require(probe.audio, sourceLocation: sourceLocation)
        // Matroska's DURATION tag is the track's end, net of the codec's padding (the last Opus
        // packet's stated duration is not).
        let packetEnd = try #require(audioEnd, "no audio packets", sourceLocation: sourceLocation)
        let audioEnd = probe.formatName.contains("matroska") && audio.duration.isFinite ? audio.duration : packetEnd
        #expect(abs(video.startTime - audio.startTime) <= frameDuration, "A/V start offset: video \(video.startTime) s, audio \(audio.startTime) s",
                sourceLocation: sourceLocation)
        #expect(abs(end - audioEnd) <= frameDuration * Double(1 + missingFrames),
                "A/V end offset: video \(end) s, audio \(audioEnd) s, \(missingFrames) frames reported dropped", sourceLocation: sourceLocation)
    }
}
