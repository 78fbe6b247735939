import Testing
@testable import CaptureKit

/// Capture times of a live stream's frames from their stream times and arrivals.
struct LiveTimelineTests {
    private let ms: Int64 = 1_000_000

    /// Late arrivals (network jitter) keep the stream's spacing; an earlier-than-implied
    /// arrival moves the anchor so no frame is dated after it arrived.
    @Test func jitterKeepsTheStreamsSpacingAndNothingIsDatedAfterItArrived() {
        var timeline = LiveTimeline()
        let anchor: Int64 = 10_000 * ms
        #expect(timeline.time(streamTime: 0, cameraTime: nil, arrival: anchor) == anchor)
        #expect(timeline.time(streamTime: 66 * ms, cameraTime: nil, arrival: anchor + 90 * ms) == anchor + 66 * ms)
        #expect(timeline.time(streamTime: 133 * ms, cameraTime: nil, arrival: anchor + 140 * ms) == anchor + 133 * ms)
        // Arrived 20 ms sooner than the anchor implies: dated by its arrival from now on.
        #expect(timeline.time(streamTime: 200 * ms, cameraTime: nil, arrival: anchor + 180 * ms) == anchor + 180 * ms)
        #expect(timeline.time(streamTime: 266 * ms, cameraTime: nil, arrival: anchor + 260 * ms) == anchor + 246 * ms)
    }

    /// A frame more than a second late against its stream time (a stall, a clock jump) starts
    /// a new anchor; times never go backwards, even for a stream clock that does.
    @Test func jumpsStartANewAnchorAndTimesNeverGoBackwards() {
        var timeline = LiveTimeline()
        #expect(timeline.time(streamTime: 0, cameraTime: nil, arrival: 1_000 * ms) == 1_000 * ms)
        #expect(timeline.time(streamTime: 66 * ms, cameraTime: nil, arrival: 3_500 * ms) == 3_500 * ms)
        // On the new anchor it would be dated 3.567 s, after it arrived: the anchor moves.
        #expect(timeline.time(streamTime: 133 * ms, cameraTime: nil, arrival: 3_560 * ms) == 3_560 * ms)
        // The stream's clock steps back: the new anchor dates it by arrival, after the last.
        let last = timeline.time(streamTime: 200 * ms, cameraTime: nil, arrival: 3_640 * ms)
        let rewound = timeline.time(streamTime: 0, cameraTime: nil, arrival: 3_641 * ms)
        #expect(last == 3_627 * ms)
        #expect(rewound == 3_641 * ms)
        // Unstamped frames are dated by their arrival, still after the last.
        #expect(timeline.time(streamTime: nil, cameraTime: nil, arrival: 3_600 * ms) == rewound + 1)
    }

    /// The camera's wall clock (RTCP's NTP time), however far from this machine's, dates
    /// frames by its own spacing, is preferred to the stream's timestamps once known, and goes
    /// on across a reconnection, where the stream's clock starts again: the frames after it are
    /// dated by how long the camera says it was away, not by when they happened to arrive.
    @Test func theCamerasClockOutlivesAReconnection() {
        var timeline = LiveTimeline()
        let ahead: Int64 = 3_600_000 * ms   // the camera's clock an hour ahead of this one
        #expect(timeline.time(streamTime: 0, cameraTime: nil, arrival: 1_000 * ms) == 1_000 * ms)
        #expect(timeline.cameraClockOffset == nil)
        // Its first sender report: the camera's clock anchors anew, at the frame's arrival.
        #expect(timeline.time(streamTime: 66 * ms, cameraTime: ahead + 1_066 * ms, arrival: 1_070 * ms) == 1_070 * ms)
        #expect(timeline.cameraClockOffset == 4 * ms - ahead)
        #expect(timeline.time(streamTime: 133 * ms, cameraTime: ahead + 1_133 * ms, arrival: 1_160 * ms) == 1_137 * ms)
        // Away 5 s; the new connection's stream clock starts at 0 and means nothing yet, the
        // camera's clock still dates its frames, 50 ms late in arriving or not.
        timeline.restart()
        #expect(timeline.time(streamTime: 0, cameraTime: ahead + 6_133 * ms, arrival: 6_187 * ms) == 6_137 * ms)
        // Frames of the new connection before its first sender report anchor its stream clock.
        timeline.restart()
        #expect(timeline.time(streamTime: 0, cameraTime: nil, arrival: 9_000 * ms) == 9_000 * ms)
        #expect(timeline.time(streamTime: 66 * ms, cameraTime: nil, arrival: 9_100 * ms) == 9_066 * ms)
    }

    /// Picture and sound share the anchor, so the faster of them sets it for both and they
    /// stay as aligned as sent; each track goes forward on its own although the demuxer
    /// interleaves them (a sound packet stamped before the last frame is not pushed after it).
    @Test func pictureAndSoundShareTheAnchorAndEachGoesForwardOnItsOwn() {
        var timeline = LiveTimeline()
        let anchor: Int64 = 5_000 * ms
        #expect(timeline.time(.video, streamTime: 100 * ms, cameraTime: nil, arrival: anchor + 100 * ms) == anchor + 100 * ms)
        // Sound ending at 90 ms, read after that frame: dated on the same anchor, before it.
        #expect(timeline.time(.audio, streamTime: 90 * ms, cameraTime: nil, arrival: anchor + 105 * ms) == anchor + 90 * ms)
        // Sound that travelled 10 ms faster moves the anchor for the picture too.
        #expect(timeline.time(.audio, streamTime: 150 * ms, cameraTime: nil, arrival: anchor + 140 * ms) == anchor + 140 * ms)
        #expect(timeline.time(.video, streamTime: 166 * ms, cameraTime: nil, arrival: anchor + 170 * ms) == anchor + 156 * ms)
    }
}

/// Sound laid end to end on a camera's timeline.
struct LiveSoundLayoutTests {
    /// Within 5 ms of the timeline the sample count wins; beyond, the timeline does: a gap
    /// later, a cut earlier (never sound over sound), a stretch wholly in the past dropped.
    @Test func soundFollowsTheSampleCountUnlessTheTimelineMovesPastTheTolerance() {
        var layout = LiveSoundLayout(rate: 48_000)
        #expect(layout.place(frames: 1024, start: 10_000) == .init(start: 10_000, cut: 0, gap: 0, sequence: 0))
        // 100 samples (2 ms) late: jitter, laid right after.
        #expect(layout.place(frames: 1024, start: 11_124) == .init(start: 11_024, cut: 0, gap: 0, sequence: 1024))
        // 480 samples (10 ms) late: a gap.
        #expect(layout.place(frames: 1024, start: 12_528) == .init(start: 12_528, cut: 0, gap: 480, sequence: 2528))
        // 600 samples early: the overlapping front is cut.
        #expect(layout.place(frames: 1024, start: 12_952) == .init(start: 13_552, cut: 600, gap: 0, sequence: 3552))
        // Entirely before the end of what was laid: dropped, the next one follows as before.
        #expect(layout.place(frames: 256, start: 13_000) == nil)
        #expect(layout.place(frames: 1024, start: 13_976) == .init(start: 13_976, cut: 0, gap: 0, sequence: 3976))
    }
}

