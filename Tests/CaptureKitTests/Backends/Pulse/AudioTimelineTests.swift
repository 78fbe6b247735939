import Testing
@testable import CaptureKit

/// How captured audio is placed on the monotonic clock from the sound server's noisy "now −
/// latency" measurements: sample-exact runs, jitter ignored, drift followed in small steps, lost
/// audio reported as a gap and left out of place (a recording fills it with silence).
@Suite("AudioTimeline")
struct AudioTimelineTests {
    static let rate = 48_000
    /// 10 ms buffers at 48 kHz.
    static let frames = 480

    /// Nanoseconds of sample `index` after a start at 1000 s of uptime.
    static func nanoseconds(ofSample index: Int64) -> Int64 {
        1_000_000_000_000 + index * 1_000_000_000 / Int64(rate)
    }

    @Test func jitterIsIgnoredAndBuffersJoinExactly() {
        var timeline = AudioTimeline(sampleRate: Self.rate)
        let first = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: 0))
        #expect(first.start == 48_000_000 && first.gap == 0 && first.sequence == 0)
        for index in 1..<500 {
            // ±1.5 ms of measurement jitter, alternating.
            let jitter: Int64 = index % 2 == 0 ? 1_500_000 : -1_500_000
            let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: Int64(index * Self.frames)) + jitter)
            #expect(placement.start == first.start + Int64(index * Self.frames), "buffer \(index)")
            #expect(placement.gap == 0)
            #expect(placement.sequence == Int64(index * Self.frames))
        }
    }

    @Test func lostAudioIsAGapAndTheRestKeepsItsRealTime() {
        var timeline = AudioTimeline(sampleRate: Self.rate)
        for index in 0..<10 {
            _ = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: Int64(index * Self.frames)))
        }
        // 100 ms (4800 samples) never arrived.
        let after = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: Int64(10 * Self.frames + 4_800)))
        #expect(after.gap == 4_800)
        #expect(after.start == 48_000_000 + Int64(10 * Self.frames + 4_800))
        #expect(after.sequence == Int64(10 * Self.frames + 4_800), "sequence numbers count the lost samples")
        // …and the next one joins it again.
        let next = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: Int64(11 * Self.frames + 4_800)))
        #expect(next.start == after.start + Int64(Self.frames) && next.gap == 0)
    }

    @Test func aHoleReportedByTheServerMovesTheNextBuffer() {
        var timeline = AudioTimeline(sampleRate: Self.rate)
        let first = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: 0))
        timeline.skip(frames: 960)
        let next = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: Int64(Self.frames + 960)))
        #expect(next.start == first.start + Int64(Self.frames + 960))
        #expect(next.gap == 0, "the hole was reported when skipped, not again")
        #expect(next.sequence == Int64(Self.frames + 960))
    }

    /// A sound card whose clock runs 200 ppm fast against the CPU's: the timeline follows within
    /// the 5 ms tolerance, in a few small steps rather than at every buffer.
    @Test func driftIsFollowedInSmallSteps() {
        var timeline = AudioTimeline(sampleRate: Self.rate)
        var steps = 0
        var previousEnd: Int64?
        var worst: Int64 = 0
        for index in 0..<6_000 {   // one minute
            let sample = Int64(index * Self.frames)
            let measured = Self.nanoseconds(ofSample: sample) - sample * 1_000_000_000 / Int64(Self.rate) * 200 / 1_000_000
            let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: measured)
            if let previousEnd, placement.start != previousEnd { steps += 1 }
            #expect(placement.gap == 0)
            previousEnd = placement.start + Int64(Self.frames)
            worst = max(worst, abs(placement.start - AudioTimeline.samples(fromNanoseconds: measured, rate: Self.rate)))
        }
        // 12 ms of drift over the minute, followed in steps of about 5 ms.
        #expect(steps >= 1 && steps <= 4, "\(steps) corrections")
        #expect(worst <= 8 * 48, "stays within 8 ms of the measured time (worst \(worst) samples)")
    }
}
