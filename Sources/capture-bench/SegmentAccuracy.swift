import Foundation

/// Where a segmented recording's cuts fell (`segment-1080p`), judged on the input's timeline:
/// segment k's first frame is input frame (frames of the segments before it), at that count
/// divided by the frame rate, and ideally at k·T. A frame-exact cut at a 30 fps input and a
/// whole-second T is possible, so any offset is the segmenter's doing.
struct SegmentAccuracy {
    let segments: [SegmentProbe]
    let frameRate: Int
    /// The segment duration T.
    let seconds: Int
    let inputFrames: Int

    /// Per segment, its first frame's input frame number minus the ideal boundary's (k·T·fps):
    /// 0 is a cut on the boundary, +1 a frame late.
    var boundaryOffsetsInFrames: [Int] {
        var before = 0
        return segments.enumerated().map { index, segment in
            defer { before += segment.videoFrames }
            return before - index * seconds * frameRate
        }
    }

    var totalFrames: Int { segments.reduce(0) { $0 + $1.videoFrames } }

    /// Segments of T from the start needed for the input: the last one may be shorter.
    var idealSegmentCount: Int { (inputFrames + seconds * frameRate - 1) / (seconds * frameRate) }

    /// What is not as it should be — frames lost or doubled, a cut off its boundary or not on
    /// a keyframe, a segment not starting at time zero; empty when the segments are exact.
    var faults: [String] {
        var faults: [String] = []
        if totalFrames != inputFrames { faults.append("\(totalFrames) frames for \(inputFrames)") }
        if segments.count != idealSegmentCount { faults.append("\(segments.count) segments for \(idealSegmentCount)") }
        if !boundaryOffsetsInFrames.allSatisfy({ $0 == 0 }) { faults.append("a cut off its boundary") }
        if !segments.allSatisfy(\.startsOnKeyframe) { faults.append("a segment not starting on a keyframe") }
        let late = segments.enumerated().filter { abs($0.element.firstFrameTime) >= 0.5 / Double(frameRate) }
        if !late.isEmpty {
            faults.append("segment " + late.map { "\($0.offset + 1)" }.joined(separator: ", ") + " showing its first frame after time zero")
        }
        return faults
    }

    /// The note under the table for `tool`'s segments.
    func note(tool: String) -> String {
        let offsets = boundaryOffsetsInFrames
        let milliseconds = offsets.map { String(format: "%+.1f", Double($0) * 1000 / Double(frameRate)) }
        let worst = offsets.map(abs).max() ?? 0
        let firstTimes = segments.map { String(format: "%.3f", $0.firstFrameTime) }
        let keyframes = segments.filter(\.startsOnKeyframe).count
        let audio = segments.map(\.audioPackets)
        return "\(tool) boundaries: \(segments.count) segments (\(idealSegmentCount) of \(seconds) s from the start fit the input); "
            + "frames per segment \(segments.map { String($0.videoFrames) }.joined(separator: "/")) = \(totalFrames) of "
            + "\(inputFrames) input frames (\(totalFrames == inputFrames ? "none lost or doubled" : "NOT equal")); first frame vs k·\(seconds) s "
            + "on the input's timeline: \(milliseconds.joined(separator: "/")) ms (worst \(worst) frame\(worst == 1 ? "" : "s")); "
            + "starts on a keyframe: \(keyframes) of \(segments.count); first frame's own time \(firstTimes.joined(separator: "/")) s; "
            + "audio packets \(audio.map(String.init).joined(separator: "/")) = \(audio.reduce(0, +))"
    }
}
