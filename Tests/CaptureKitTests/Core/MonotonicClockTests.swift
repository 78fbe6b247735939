import Testing
@testable import CaptureKit

/// The session clock and its one conversion to and from audio sample counts, which every audio
/// backend's timeline uses.
@Suite(.excludable)
struct MonotonicClockTests {
    @Test func sampleConversionsAreExactForAnyUptime() {
        let nanoseconds: Int64 = 1_234_567 * 1_000_000_000 + 500_000_000   // 14 days of uptime
        let samples = MonotonicClock.samples(atNanoseconds: nanoseconds, rate: 48_000, rounding: .roundTowardNegativeInfinity)
        #expect(samples == 1_234_567 * 48_000 + 24_000)
        #expect(MonotonicClock.nanoseconds(atSample: samples, rate: 48_000) == nanoseconds)
        let century: Int64 = 100 * 365 * 86_400 * 1_000_000_000
        #expect(MonotonicClock.samples(atNanoseconds: century, rate: 192_000, rounding: .roundHalfAwayFromZero) == 100 * 365 * 86_400 * 192_000)
    }

    @Test func boundsRoundDownAndMeasurementsToTheNearestSample() {
        // 2/3 of a 44.1 kHz sample past sample 44_100: a bound says sample 44_100 is the last
        // captured; a measurement is nearer 44_101.
        let nanoseconds: Int64 = 1_000_000_000 + 15_118   // 1 s + 0.6667 of 22_675.7 ns
        #expect(MonotonicClock.samples(atNanoseconds: nanoseconds, rate: 44_100, rounding: .roundTowardNegativeInfinity) == 44_100)
        #expect(MonotonicClock.samples(atNanoseconds: nanoseconds, rate: 44_100, rounding: .roundHalfAwayFromZero) == 44_101)
        #expect(MonotonicClock.nanoseconds(atSample: 44_101, rate: 44_100) == 1_000_022_675, "rounded down")
    }

    @Test(.timeLimit(.minutes(1)))
    func mediaTimeNowIsTheSessionClockInNanoseconds() {
        let before = MonotonicClock.nanoseconds()
        let now = MediaTime.now
        let after = MonotonicClock.nanoseconds()
        #expect(now.timescale == 1_000_000_000)
        #expect(before <= now.value && now.value <= after)
        // Deadlines that passed, or are not numeric, return at once (the time limit would catch
        // a sleep towards a misread deadline).
        MediaTime.sleep(until: now - MediaTime(value: 1, timescale: 1))
        MediaTime.sleep(until: .invalid)
    }
}
