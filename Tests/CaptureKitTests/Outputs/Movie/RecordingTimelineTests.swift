import Testing
@testable import CaptureKit

/// A recording's time zero, pauses and source → file time, with no session or file: the
/// arithmetic `MovieRecording` places every frame and sample by.
@Suite("RecordingTimeline")
struct RecordingTimelineTests {
    private let frame = MediaTime(value: 1, timescale: 30)
    private func t(_ frames: Int64) -> MediaTime { MediaTime(value: 100 * 30 + frames, timescale: 30) }

    @Test func firstAdmittedSampleIsTimeZero() {
        var timeline = RecordingTimeline()
        #expect(timeline.start(at: t(0)) == .started)
        #expect(timeline.start(at: t(1)) == nil, "started once")
        var transitions: [RecordingTimeline.Transition] = []
        #expect(timeline.admitVideo(at: t(0), lastWrittenEnd: nil, transitions: &transitions) == .write(fileTime: .zero))
        #expect(timeline.admitVideo(at: t(7), lastWrittenEnd: t(1), transitions: &transitions) == .write(fileTime: MediaTime(value: 7, timescale: 30)))
        #expect(transitions.isEmpty)
    }

    @Test func nothingIsWrittenBeforeTheRecordingStarts() {
        var timeline = RecordingTimeline()
        var transitions: [RecordingTimeline.Transition] = []
        #expect(timeline.admitVideo(at: t(0), lastWrittenEnd: nil, transitions: &transitions) == .skip)
        var runs: [RecordingTimeline.Run] = []
        timeline.forEachRun(from: t(0), count: 480, rate: 48_000) { runs.append($0) }
        #expect(runs.isEmpty)
    }

    /// A pause starts where the last written frame ended and ends at the first frame at or
    /// after the resume request; the file's time runs on without the paused stretch.
    @Test func pausesCutTheirStretchOutOfTheFile() {
        var timeline = RecordingTimeline()
        _ = timeline.start(at: t(0))
        var transitions: [RecordingTimeline.Transition] = []
        for index in 0..<10 {
            #expect(timeline.admitVideo(at: t(Int64(index)), lastWrittenEnd: index == 0 ? nil : t(Int64(index)),
                                        transitions: &transitions) == .write(fileTime: frame * Int64(index)))
        }
        timeline.requestPause(at: t(10))
        #expect(timeline.admitVideo(at: t(10), lastWrittenEnd: t(10), transitions: &transitions) == .skip)
        #expect(transitions == [.paused])
        #expect(timeline.pausedSince == t(10))
        for index in 11..<40 {
            #expect(timeline.admitVideo(at: t(Int64(index)), lastWrittenEnd: t(10), transitions: &transitions) == .skip)
        }
        timeline.requestResume(at: t(39) + MediaTime(value: 1, timescale: 60))   // between frames 39 and 40
        #expect(timeline.admitVideo(at: t(40), lastWrittenEnd: t(10), transitions: &transitions) == .write(fileTime: frame * 10))
        #expect(transitions == [.paused, .resumed])
        #expect(timeline.pauses == [.init(start: t(10), end: t(40))])
        #expect(timeline.pausedTotal == frame * 30)
        #expect(timeline.admitVideo(at: t(41), lastWrittenEnd: t(41), transitions: &transitions) == .write(fileTime: frame * 11))
        // Source times before the pause keep their place; after it they move back by its length.
        #expect(timeline.fileTime(of: t(5)) == frame * 5)
        #expect(timeline.fileTime(of: t(45)) == frame * 15)
        #expect(timeline.filePosition(of: t(45), rate: 48_000) == 15 * 1600)
    }

    @Test func aResumeRequestedWhileNotPausedChangesNothing() {
        var timeline = RecordingTimeline()
        _ = timeline.start(at: t(0))
        timeline.requestResume(at: t(3))
        #expect(timeline.resume(at: t(3)) == nil)
        var transitions: [RecordingTimeline.Transition] = []
        #expect(timeline.admitVideo(at: t(4), lastWrittenEnd: t(4), transitions: &transitions) == .write(fileTime: frame * 4))
        #expect(transitions.isEmpty)
    }

    /// Without video, the pause starts at the first audio sample at or after the request and
    /// ends at once when resumed.
    @Test func audioOnlyPausesOnSamples() {
        var timeline = RecordingTimeline()
        _ = timeline.start(at: t(0))
        timeline.requestPause(at: t(3))
        #expect(timeline.admitAudioOnly(at: t(2)) == nil)
        #expect(timeline.admitAudioOnly(at: t(3)) == .paused)
        #expect(timeline.admitAudioOnly(at: t(4)) == nil, "already paused")
        #expect(timeline.resume(at: t(9)) == .resumed)
        #expect(timeline.fileTime(of: t(10)) == frame * 4)
    }

    /// Audio buffers split into runs at time zero and at pause edges, to the sample.
    @Test func audioRunsSplitAtTimeZeroAndPauseEdges() {
        var timeline = RecordingTimeline()
        let zero = MediaTime(value: 480_000, timescale: 48_000)            // 10 s
        _ = timeline.start(at: zero)
        // A buffer starting 100 samples before time zero.
        var runs: [RecordingTimeline.Run] = []
        timeline.forEachRun(from: zero - MediaTime(value: 100, timescale: 48_000), count: 480, rate: 48_000) { runs.append($0) }
        #expect(runs.map(\.samples) == [0..<100, 100..<480])
        #expect(runs.map(\.isWritten) == [false, true])
        #expect(runs[1].time == zero)

        // Paused from +1 s to +2 s (the open pause while it lasts, then the ended one).
        _ = timeline.start(at: zero)
        timeline.requestPause(at: zero + .init(value: 1, timescale: 1))
        _ = timeline.admitAudioOnly(at: zero + .init(value: 1, timescale: 1))
        runs = []
        timeline.forEachRun(from: zero + .init(value: 47_900, timescale: 48_000), count: 480, rate: 48_000) { runs.append($0) }
        #expect(runs.map(\.samples) == [0..<100, 100..<480])
        #expect(runs.map(\.isWritten) == [true, false], "the open pause runs to the end of the buffer")
        _ = timeline.resume(at: zero + .init(value: 2, timescale: 1))
        runs = []
        timeline.forEachRun(from: zero + .init(value: 95_800, timescale: 48_000), count: 480, rate: 48_000) { runs.append($0) }
        #expect(runs.map(\.samples) == [0..<200, 200..<480])
        #expect(runs.map(\.isWritten) == [false, true])
        #expect(timeline.filePosition(of: runs[1].time, rate: 48_000) == 48_000, "right after the pause, at +1 s in the file")
    }

    @Test func samplesBeforeALimitRoundDown() {
        let start = MediaTime(value: 1_000, timescale: 48_000)
        #expect(RecordingTimeline.samples(before: start + .init(value: 1, timescale: 100), from: start, count: 960, rate: 48_000) == 480)
        #expect(RecordingTimeline.samples(before: start + .init(value: 1, timescale: 1), from: start, count: 960, rate: 48_000) == 960)
        #expect(RecordingTimeline.samples(before: start - .init(value: 1, timescale: 1), from: start, count: 960, rate: 48_000) == 0)
        // 1/30 s at 44.1 kHz is 1470 samples exactly; a hair less rounds down.
        let limit = MediaTime(value: 1, timescale: 30) - MediaTime(value: 1, timescale: 1_000_000)
        #expect(RecordingTimeline.samples(before: limit, from: .zero, count: 4_410, rate: 44_100) == 1_469)
    }
}
