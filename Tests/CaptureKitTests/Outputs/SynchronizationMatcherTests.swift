import Testing
@testable import CaptureKit

/// The synchronizer's pairing rules on made-up times: no device, no thread.
@Suite struct SynchronizationMatcherTests {
    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test func framesPairWithTheNearestWithinTolerance() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2, tolerance: Self.ms(10))
        var ticks: [SynchronizationMatcher<Int>.Tick] = []
        // Stream 1 runs 7 ms behind the master at the same rate.
        for n in Int64(0)..<10 {
            ticks += matcher.add(Int(n), at: Self.ms(n * 33), stream: 0)
            ticks += matcher.add(100 + Int(n), at: Self.ms(n * 33 + 7), stream: 1)
        }
        #expect(ticks.count == 10)
        #expect(ticks.map(\.master) == Array(0..<10))
        #expect(ticks.map { $0.matched[1]?.payload } == (0..<10).map { 100 + $0 })
        #expect(ticks.allSatisfy { $0.unmatched.isEmpty && $0.skipped.isEmpty })
    }

    @Test func aTickWaitsForTheLaterFrameAndTakesTheNearer() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2, tolerance: Self.ms(16))
        #expect(matcher.add(1, at: Self.ms(90), stream: 1).isEmpty)
        #expect(matcher.add(0, at: Self.ms(100), stream: 0).isEmpty, "stream 1 may still send a nearer frame")
        let ticks = matcher.add(2, at: Self.ms(105), stream: 1)
        #expect(ticks.count == 1)
        #expect(ticks.first?.matched[1]?.payload == 2)
        #expect(ticks.first?.skipped[1] == 1, "the frame at 90 ms went to no tick")
    }

    @Test func aSlowerStreamLeavesEveryOtherTickUnmatched() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2, tolerance: Self.ms(10))
        var ticks: [SynchronizationMatcher<Int>.Tick] = []
        for n in Int64(0)..<12 {
            ticks += matcher.add(Int(n), at: Self.ms(n * 33), stream: 0)
            if n % 2 == 0 { ticks += matcher.add(100 + Int(n), at: Self.ms(n * 33 + 2), stream: 1) }
        }
        ticks += matcher.finish()
        #expect(ticks.count == 12)
        for tick in ticks {
            if tick.master % 2 == 0 {
                #expect(tick.matched[1]?.payload == 100 + tick.master)
            } else {
                #expect(tick.unmatched == [1], "tick \(tick.master)")
            }
        }
    }

    @Test func aStalledStreamHoldsTicksBackOnlyUntilFourWait() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 3, tolerance: Self.ms(10))
        var settled: [Int] = []
        for n in Int64(0)..<8 {
            settled += matcher.add(Int(n), at: Self.ms(n * 33), stream: 0).map(\.master)
            settled += matcher.add(10 + Int(n), at: Self.ms(n * 33), stream: 1).map(\.master)
            // Stream 2 sends nothing: its camera is gone.
        }
        #expect(settled == [0, 1, 2, 3], "ticks wait for at most four newer ones")
        let rest = matcher.finish()
        #expect(rest.map(\.master) == [4, 5, 6, 7])
        #expect(rest.allSatisfy { $0.unmatched == [2] && $0.matched[1] != nil })
    }

    @Test func theDefaultToleranceIsHalfTheMasterInterval() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2)
        _ = matcher.add(0, at: Self.ms(0), stream: 0)
        _ = matcher.add(1, at: Self.ms(40), stream: 0)
        #expect(matcher.effectiveTolerance == Self.ms(20))
    }

    @Test func aTickKeepsTheToleranceOfItsOwnInterval() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2)
        var ticks: [SynchronizationMatcher<Int>.Tick] = []
        // Ticks at 0, 40 and 120 ms wait for stream 1, whose first frame is 22 ms after the
        // second tick: more than half the 40 ms before that tick, although the interval after
        // it (80 ms), in force when the frame arrives, would allow 40.
        for (n, time) in [Int64(0), 40, 120].enumerated() { ticks += matcher.add(n, at: Self.ms(time), stream: 0) }
        ticks += matcher.add(100, at: Self.ms(62), stream: 1)
        ticks += matcher.finish()
        #expect(ticks.map(\.master) == [0, 1, 2])
        #expect(ticks.allSatisfy { $0.matched.isEmpty && $0.unmatched == [1] }, "\(ticks.map(\.matched))")
    }

    @Test func lostFramesAreReportedAsSkipped() {
        var matcher = SynchronizationMatcher<Int>(streamCount: 2, tolerance: Self.ms(10))
        matcher.lost(3, stream: 1)
        _ = matcher.add(0, at: Self.ms(0), stream: 0)
        let ticks = matcher.add(1, at: Self.ms(1), stream: 1)
        #expect(ticks.first?.skipped[1] == 3)
    }
}
