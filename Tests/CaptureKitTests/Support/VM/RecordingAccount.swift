@testable import CaptureKit

/// How the frames of a ``WitnessedRecording`` add up, by sequence number. The file's packets
/// are matched to the witness's frames by capture time (the file keeps capture timestamps, so
/// packet *k* lies exactly as far after the first packet as its frame was captured after the
/// first frame); that names the first and last sequence numbers in the file. What a loaded
/// machine cannot break: every sequence number between those two is in the file or counted in
/// the movie's `droppedSampleCount`, and the movie counts nothing the device did not produce
/// while the recording was under way.
struct RecordingAccount: CustomStringConvertible {
    /// A packet of the file and the witnessed frame captured at its time.
    struct Match {
        var sequenceNumber: UInt64
        /// The packet's file time, in seconds.
        var fileTime: Double
    }

    /// Packets in the file.
    private(set) var inFile = 0
    /// Video frames the movie output says it wrote.
    private(set) var written: Int?
    /// Samples the movie output reported missing (`droppedSampleCount`).
    private(set) var reported: Int?
    /// The file's packets that are witnessed frames, in file order.
    private(set) var matches: [Match] = []
    /// File times (s) of packets no witnessed frame was captured at.
    private(set) var unmatched: [Double] = []
    /// Sequence numbers from the file's first frame to its last.
    private(set) var produced = 0
    /// Of those, the ones the device skipped (reported to the witness as discontinuities).
    private(set) var skippedByDevice = 0
    /// Of those, the ones the witness was handed but the file lacks: frames the movie was
    /// offered too (one delivery loop feeds both) and refused.
    private(set) var refusedByMovie = 0
    /// Sequence numbers produced between the witness's last frame before `startRecording` and
    /// the file's first frame, and after the file's last frame up to the last witnessed one:
    /// drops the movie may count outside the file's span while the recording existed.
    private(set) var outsideSpan = 0
    /// The witness's own accounting (every frame it was handed delivered or reported).
    let witness: FrameAccounting
    /// Device sequence numbers per second over the whole witness: how fast the device really
    /// produced on this run.
    private(set) var producedPerSecond = 0.0

    /// The largest difference between a packet's file time and its frame's capture time
    /// (both from the first), in nanoseconds: the file's rounding of capture times.
    private(set) var largestTimeError: Int64 = 0

    /// Packets from the first one matched to a sequence number to the last one: the file's
    /// frames in the span (all of them, unless the witness itself dropped the first or last).
    private(set) var inSpan = 0

    /// Sequence numbers of the span missing from the file.
    var missing: Int { produced - inSpan }

    /// The promise: every packet is a captured frame, in capture order, the output's frame
    /// count is the file's, and frames in the file plus reported drops cover the span without
    /// counting beyond what the device produced while the recording existed.
    var isComplete: Bool {
        guard let written, let reported, !matches.isEmpty, unmatched.isEmpty else { return false }
        return written == inFile && reported >= missing && reported <= missing + outsideSpan && witness.isComplete
            && zip(matches, matches.dropFirst()).allSatisfy { $0.sequenceNumber < $1.sequenceNumber }
    }

    init(_ recording: WitnessedRecording) {
        witness = FrameAccounting(recording.witness)
        written = recording.movie?.videoFrameCount
        reported = recording.movie?.droppedSampleCount
        inFile = recording.packetTimes.count

        // Delivered frames, and the device's drop reports before each of them.
        var frames: [(sequence: UInt64, pts: Int64, skippedBefore: Int)] = []
        var lateTimes: [Int64] = []
        var skipped = 0
        for event in recording.witness {
            switch event {
            case .drop(let drop):
                if drop.reason == .discontinuity {
                    skipped += drop.count
                } else if let pts = drop.presentationTimeStamp.nanoseconds {
                    lateTimes.append(pts)
                }
            case .sample(let received):
                guard let pts = received.sample.presentationTimeStamp.nanoseconds else { continue }
                frames.append((received.sequenceNumber, pts, skipped))
                skipped = 0
            }
        }
        if let first = frames.first, let last = frames.last, last.pts > first.pts {
            producedPerSecond = Double(last.sequence - first.sequence) * 1e9 / Double(last.pts - first.pts)
        }
        let byTime = frames.indices.sorted { frames[$0].pts < frames[$1].pts }
        // Within a millisecond: the file stores times in 90 kHz ticks.
        let tolerance: Int64 = 1_000_000
        func frame(at pts: Int64) -> Int? {
            var low = 0, high = byTime.count
            while low < high {
                let middle = (low + high) / 2
                if frames[byTime[middle]].pts < pts - tolerance { low = middle + 1 } else { high = middle }
            }
            return low < byTime.count && abs(frames[byTime[low]].pts - pts) <= tolerance ? byTime[low] : nil
        }
        let offsets = recording.packetTimes.map { Int64(($0 * 1e9).rounded()) }
        // The first packet is the frame captured at the recording's start time, which the
        // delegate heard (`startPTS`). Without it (or when the witness dropped that frame), it
        // is one of the frames handed over after startRecording was called: the one whose
        // capture times fit the most packets — a guess, since a regular camera's frames fit as
        // well from a later start, which shifts the span by as many frames.
        let anchor = recording.startTime?.nanoseconds.flatMap { frame(at: $0) }
        var best: (start: Int, fitted: Int)?
        for start in frames.indices where anchor == nil && (recording.lastBeforeStart.map({ frames[start].sequence > $0 }) ?? true) {
            let fitted = offsets.count { offset in
                let pts = frames[start].pts + offset
                return frame(at: pts) != nil || lateTimes.contains { abs($0 - pts) <= tolerance }
            }
            if fitted > (best?.fitted ?? 0) { best = (start, fitted) }
            if fitted == offsets.count { break }
        }
        guard let start = anchor ?? best?.start else {
            unmatched = recording.packetTimes
            return
        }
        var matchedPackets: [Int] = []
        for (packet, (offset, time)) in zip(offsets, recording.packetTimes).enumerated() {
            let pts = frames[start].pts + offset
            if let index = frame(at: pts) {
                largestTimeError = max(largestTimeError, abs(frames[index].pts - pts))
                matches.append(Match(sequenceNumber: frames[index].sequence, fileTime: time))
                matchedPackets.append(packet)
            } else if !lateTimes.contains(where: { abs($0 - pts) <= tolerance }) {
                unmatched.append(time)
            }
        }
        if let firstPacket = matchedPackets.first, let lastPacket = matchedPackets.last { inSpan = lastPacket - firstPacket + 1 }
        guard let first = matches.first?.sequenceNumber, let last = matches.map(\.sequenceNumber).max() else { return }
        produced = Int(last - first) + 1
        let spanFrames = frames.filter { $0.sequence >= first && $0.sequence <= last }
        skippedByDevice = spanFrames.dropFirst().reduce(0) { $0 + $1.skippedBefore }
        let matched = Set(matches.map(\.sequenceNumber))
        refusedByMovie = spanFrames.count { !matched.contains($0.sequence) }
        let before = recording.lastBeforeStart.map { Int(first - $0) - 1 } ?? 0
        let after = frames.last.map { Int($0.sequence - last) } ?? 0
        outsideSpan = max(0, before) + max(0, after)
    }

    var description: String {
        "\(inFile) packets (\(inSpan) in the span; output wrote \(written.map(String.init) ?? "?")) + \(reported.map(String.init) ?? "?") reported dropped"
            + " for \(produced) sequence numbers \(matches.first?.sequenceNumber ?? 0)...\(matches.map(\.sequenceNumber).max() ?? 0)"
            + " (\(skippedByDevice) skipped by the device, \(refusedByMovie) refused by the movie, \(outsideSpan) produced outside the span"
            + " while recording); file times within \(largestTimeError) ns of capture times; device at \(String(format: "%.1f", producedPerSecond)) frames/s; witness: \(witness)"
            + (unmatched.isEmpty ? "" : "; packets at no captured frame's time: \(unmatched.prefix(8))")
    }
}
