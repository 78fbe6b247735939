import Foundation

/// What ffprobe finds in one segment of a segmented recording (`segment-1080p`): enough to tell
/// where it was cut and whether it plays alone.
struct SegmentProbe: Sendable {
    /// The file name, without its folder.
    let name: String
    /// Video packets (one per frame: x264 writes no empty ones).
    let videoFrames: Int
    let audioPackets: Int
    /// The earliest presentation time of its video, in seconds: 0 for a segment that starts at
    /// time zero (what `-reset_timestamps 1` and CaptureKit's segments promise).
    let firstFrameTime: Double
    /// Its first video packet is a keyframe and is also the first frame shown: the segment
    /// decodes without the one before it.
    let startsOnKeyframe: Bool

    /// The segments in `folder`, in recording order: the order of CaptureKit's index
    /// (`segments.jsonl`, appended as each segment finishes) when there is one — its names are
    /// dates, to the second, which an unpaced recording makes many of per second — otherwise
    /// the `.mp4` files by name (ffmpeg's `segment%03d`).
    static func files(in folder: String) throws -> [String] {
        let index = URL(fileURLWithPath: folder).appendingPathComponent("segments.jsonl")
        if let text = try? String(contentsOf: index, encoding: .utf8) {
            return text.split(whereSeparator: \.isNewline).compactMap { line in
                let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return entry?["file"] as? String
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        return names.filter { $0.hasSuffix(".mp4") }.sorted()
    }

    /// Probes the segment `name` in `folder` packet by packet.
    static func probe(_ name: String, in folder: String, ffprobe: String) throws -> SegmentProbe {
        let output = try RecordProbe.run(ffprobe, ["-show_entries", "packet=codec_type,pts_time,flags", "-of", "compact=p=0"],
                                         "\(folder)/\(name)")
        var videoFrames = 0, audioPackets = 0
        var firstFrameTime = Double.infinity
        var firstPacket: (time: Double, isKeyframe: Bool)?
        // One "codec_type=video|pts_time=0.033333|flags=K__" line per packet, in decode order.
        for line in output.split(whereSeparator: \.isNewline) {
            var fields: [Substring: Substring] = [:]
            for pair in line.split(separator: "|") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            switch fields["codec_type"] {
            case "video":
                videoFrames += 1
                let time = fields["pts_time"].flatMap { Double($0) } ?? .nan
                if time < firstFrameTime { firstFrameTime = time }
                if firstPacket == nil { firstPacket = (time, fields["flags"]?.first == "K") }
            case "audio":
                audioPackets += 1
            default:
                break
            }
        }
        let startsOnKeyframe = firstPacket.map { $0.isKeyframe && $0.time == firstFrameTime } ?? false
        return SegmentProbe(name: name, videoFrames: videoFrames, audioPackets: audioPackets,
                            firstFrameTime: firstFrameTime.isFinite ? firstFrameTime : .nan, startsOnKeyframe: startsOnKeyframe)
    }
}
