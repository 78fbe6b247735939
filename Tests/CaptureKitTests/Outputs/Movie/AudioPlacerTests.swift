import Testing
@testable import CaptureKit

/// The audio track stays one contiguous run placed by capture time: gaps become silence,
/// overlaps are trimmed, and the end is padded to the video — counted in samples, no encoder.
@Suite("AudioPlacer")
struct AudioPlacerTests {
    @Test func contiguousRunsAreAppendedAsTheyAre() {
        var placer = AudioPlacer()
        #expect(placer.place(0..<480, at: 0, rate: 48_000) == .init(silence: 0, samples: 0..<480))
        #expect(placer.place(0..<480, at: 480, rate: 48_000) == .init(silence: 0, samples: 0..<480))
        #expect(placer.samplesWritten == 960)
    }

    @Test func aGapBecomesSilenceSoTheRestStaysInPlace() {
        var placer = AudioPlacer()
        _ = placer.place(0..<480, at: 0, rate: 48_000)
        // The microphone lost 100 ms: the next buffer belongs 4800 samples later.
        #expect(placer.place(0..<480, at: 480 + 4_800, rate: 48_000) == .init(silence: 4_800, samples: 0..<480))
        #expect(placer.samplesWritten == 480 + 4_800 + 480)
    }

    @Test func anOverlapIsTrimmedNotWrittenTwice() {
        var placer = AudioPlacer()
        _ = placer.place(0..<480, at: 0, rate: 48_000)
        // Timestamps stepped back by 5 ms (240 samples): only the new part is appended.
        #expect(placer.place(0..<480, at: 240, rate: 48_000) == .init(silence: 0, samples: 240..<480))
        #expect(placer.samplesWritten == 720)
        // Wholly covered already: nothing.
        #expect(placer.place(0..<100, at: 100, rate: 48_000).samples.isEmpty)
        #expect(placer.samplesWritten == 720)
    }

    @Test func aGapOfTenSecondsOrMoreIsAClockFaultNotSilence() {
        var placer = AudioPlacer()
        _ = placer.place(0..<480, at: 0, rate: 48_000)
        #expect(placer.place(0..<480, at: 480 + 480_000, rate: 48_000) == .init(silence: 0, samples: 0..<480))
        #expect(placer.samplesWritten == 960)
    }

    @Test func theTrackIsPaddedToTheVideoOnlyWhenLessThanASecondShort() {
        var placer = AudioPlacer()
        _ = placer.place(0..<48_000, at: 0, rate: 48_000)
        #expect(placer.padding(to: 48_000 + 1_600, rate: 48_000) == 1_600)
        #expect(placer.samplesWritten == 49_600)
        #expect(placer.padding(to: 49_600, rate: 48_000) == 0, "already there")
        #expect(placer.padding(to: 49_600 + 48_000, rate: 48_000) == 0, "a second or more short is not padded")
    }
}
