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
        #expect(timeline.time(streamTime: 0, arrival: anchor) == anchor)
        #expect(timeline.time(streamTime: 66 * ms, arrival: anchor + 90 * ms) == anchor + 66 * ms)
        #expect(timeline.time(streamTime: 133 * ms, arrival: anchor + 140 * ms) == anchor + 133 * ms)
        // Arrived 20 ms sooner than the anchor implies: dated by its arrival from now on.
        #expect(timeline.time(streamTime: 200 * ms, arrival: anchor + 180 * ms) == anchor + 180 * ms)
        #expect(timeline.time(streamTime: 266 * ms, arrival: anchor + 260 * ms) == anchor + 246 * ms)
    }

    /// A frame more than a second late against its stream time (a stall, a clock jump) starts
    /// a new anchor; times never go backwards, even for a stream clock that does.
    @Test func jumpsStartANewAnchorAndTimesNeverGoBackwards() {
        var timeline = LiveTimeline()
        #expect(timeline.time(streamTime: 0, arrival: 1_000 * ms) == 1_000 * ms)
        #expect(timeline.time(streamTime: 66 * ms, arrival: 3_500 * ms) == 3_500 * ms)
        // On the new anchor it would be dated 3.567 s, after it arrived: the anchor moves.
        #expect(timeline.time(streamTime: 133 * ms, arrival: 3_560 * ms) == 3_560 * ms)
        // The stream's clock steps back: the new anchor dates it by arrival, after the last.
        let last = timeline.time(streamTime: 200 * ms, arrival: 3_640 * ms)
        let rewound = timeline.time(streamTime: 0, arrival: 3_641 * ms)
        #expect(last == 3_627 * ms)
        #expect(rewound == 3_641 * ms)
        // Unstamped frames are dated by their arrival, still after the last.
        #expect(timeline.time(streamTime: nil, arrival: 3_600 * ms) == rewound + 1)
    }
}
