import Testing
@testable import CaptureKit

/// How ALSA reads are placed on the monotonic clock (pure arithmetic: no device needed).
struct ALSATimelineTests {
    /// 48 kHz, 10 ms periods, a 100 ms buffer: tolerance is 100 ms + 20 ms = 5760 frames.
    func makeTimeline() -> ALSATimeline { ALSATimeline(rate: 48_000, bufferFrames: 4_800) }

    @Test func steadyReadsJoinExactlyDespiteJitter() {
        var timeline = makeTimeline()
        var now: Int64 = 1_000_000
        var expected: Int64?
        for index in 0..<200 {
            // Reads arrive with up to 3 ms of scheduling jitter and varying buffered frames.
            let jitter = Int64((index * 37) % 144)
            now += 480
            let placement = timeline.place(count: 480, now: now + jitter, delay: index % 3 == 0 ? 480 : 0, afterXrun: false)
            if let expected { #expect(placement.presentationFrame == expected) }
            #expect(placement.gapFrames == 0)
            #expect(placement.dueFrame == now + jitter, "paced devices are delivered at once")
            expected = placement.presentationFrame + 480
        }
        #expect(!timeline.isUnpaced)
    }

    @Test func aStallLongerThanTheBufferIsAGap() {
        var timeline = makeTimeline()
        var now: Int64 = 10_000
        for _ in 0..<10 { now += 480; _ = timeline.place(count: 480, now: now, delay: 0, afterXrun: false) }
        let before = timeline.place(count: 480, now: now + 480, delay: 0, afterXrun: false)
        now += 480 + 24_000   // 500 ms without reads
        let after = timeline.place(count: 480, now: now + 480, delay: 0, afterXrun: false)
        #expect(after.gapFrames == 24_000)
        #expect(after.presentationFrame == before.presentationFrame + 480 + 24_000)
    }

    @Test func anXrunReportsEvenASmallGap() {
        var timeline = makeTimeline()
        var now: Int64 = 10_000
        for _ in 0..<10 { now += 480; _ = timeline.place(count: 480, now: now, delay: 0, afterXrun: false) }
        now += 480 + 960
        #expect(timeline.place(count: 480, now: now, delay: 0, afterXrun: false).gapFrames == 0, "20 ms late is jitter")
        now += 480 + 960
        #expect(timeline.place(count: 480, now: now, delay: 0, afterXrun: true).gapFrames == 1_920, "after an xrun it is loss")
    }

    @Test func aPCMFasterThanTheClockIsPacedOnIt() {
        var timeline = makeTimeline()
        let now: Int64 = 50_000
        var last = timeline.place(count: 480, now: now, delay: 0, afterXrun: false)
        // The file plugin: everything is readable at once.
        for _ in 0..<20 { last = timeline.place(count: 480, now: now, delay: 0, afterXrun: false) }
        #expect(timeline.isUnpaced)
        #expect(last.dueFrame == last.presentationFrame + 480, "delivered when its last frame is due")
        #expect(last.dueFrame > now)
    }

    /// The `file` plugin hands over its first 120 ms at once, and reports no delay: before the
    /// timeline can tell the PCM is unpaced, those buffers would have been delivered up to
    /// 115 ms before the times they are stamped with. None is delivered before its last frame
    /// is due.
    @Test func aBurstIsNotDeliveredAheadOfItsTime() {
        var timeline = makeTimeline()
        let now: Int64 = 50_000
        for index in 0..<12 {
            let placement = timeline.place(count: 480, now: now, delay: 0, afterXrun: false)
            #expect(placement.dueFrame >= placement.presentationFrame + 480, "buffer \(index) delivered before it ends")
            #expect(placement.dueFrame >= now)
        }
        #expect(!timeline.isUnpaced, "within the tolerance it could still be a paced PCM's burst")
    }
}
