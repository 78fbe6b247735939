import Testing
@testable import CaptureKit

/// The live recording's pace, fed scripted capture, hand-over and packet times (no encoder, no
/// clock): what it drops, when it steps faster and back, and how it stops flapping.
@Suite("EncoderPace")
struct EncoderPaceTests {
    private func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test func aFrameThatWaitedTooLongIsDroppedOnlyWhenNewerFramesWait() {
        var pace = EncoderPace(steps: 0)
        // 250 ms in the queue (limit 200) with newer frames behind it: dropped.
        #expect(pace.admit(captured: ms(1000), now: ms(1250), newerWaiting: true, oldestInside: nil).0 == .drop)
        // The same wait as the newest frame: encoded, so the picture keeps moving.
        #expect(pace.admit(captured: ms(1000), now: ms(1250), newerWaiting: false, oldestInside: nil).0 == .encode)
        // A short wait with frames behind it: encoded.
        #expect(pace.admit(captured: ms(1000), now: ms(1150), newerWaiting: true, oldestInside: nil).0 == .encode)
    }

    @Test func aLagOverTheLimitStepsFasterOncePerSettlingTime() {
        var pace = EncoderPace(steps: 2)
        #expect(pace.packetLeft(captured: ms(0), handed: ms(10), now: ms(500)) == nil)
        #expect(pace.packetLeft(captured: ms(33), handed: ms(43), now: ms(600)) == .faster)
        #expect(pace.level == 1)
        // Frames handed to the new encoder in its first 500 ms carry the switch's backlog.
        #expect(pace.packetLeft(captured: ms(300), handed: ms(700), now: ms(1000)) == nil)
        // Later ones count: still behind, one more step; then there is no faster level.
        #expect(pace.packetLeft(captured: ms(800), handed: ms(1200), now: ms(1400)) == .faster)
        #expect(pace.packetLeft(captured: ms(1500), handed: ms(2000), now: ms(2100)) == nil)
        #expect(pace.level == 2)
    }

    @Test func theOldestFrameInsideTheEncoderShowsTheLagBeforeAnyPacket() {
        var pace = EncoderPace(steps: 1)
        let (admission, step) = pace.admit(captured: ms(700), now: ms(710), newerWaiting: false, oldestInside: (ms(0), ms(10)))
        #expect(admission == .encode)
        #expect(step == .faster)
    }

    @Test func aPaceThatStartsFasterStepsBackAfterTheFirstCalmPeriod() {
        var pace = EncoderPace(steps: 2, level: 1)
        var step: EncoderPace.Step?
        // 100 ms lag, one packet every 100 ms: calm from 0.1 s, a step back 3 s later.
        for tick in Int64(1)...31 where step == nil {
            step = pace.packetLeft(captured: ms(tick * 100 - 100), handed: ms(tick * 100 - 90), now: ms(tick * 100))
            if step != nil { #expect(tick == 31) }
        }
        #expect(step == .slower)
        #expect(pace.level == 0)
    }

    @Test func dropsKeepThePaceFromSteppingBack() {
        var pace = EncoderPace(steps: 1, level: 1)
        for tick in Int64(1)...60 {
            if tick % 5 == 0 { _ = pace.admit(captured: ms(tick * 100 - 300), now: ms(tick * 100), newerWaiting: true, oldestInside: nil) }
            #expect(pace.packetLeft(captured: ms(tick * 100 - 100), handed: ms(tick * 100 - 90), now: ms(tick * 100)) == nil)
        }
        #expect(pace.level == 1)
    }

    @Test func aStepBackThatFailsSoonDoublesTheCalmPeriod() {
        var pace = EncoderPace(steps: 1, level: 1)
        var now: Int64 = 0
        func calmUntilStep() -> Int64 {
            let start = now
            while now - start < 200_000 {
                now += 100
                if pace.packetLeft(captured: ms(now - 100), handed: ms(now - 90), now: ms(now)) == .slower { return now - start }
            }
            return -1
        }
        #expect(calmUntilStep() == 3_100)
        // Behind again right after the step back (past its settling time): faster again.
        now += 600
        #expect(pace.packetLeft(captured: ms(now - 700), handed: ms(now - 50), now: ms(now)) == .faster)
        // The next step back waits twice the normal 10 s calm period, counted from the first
        // packet of a frame handed over after the new encoder's 500 ms settling time.
        #expect(calmUntilStep() == 600 + 20_000)
    }

    @Test func aStepThatCannotBeTakenIsNotTriedAgain() {
        var pace = EncoderPace(steps: 2)
        #expect(pace.packetLeft(captured: ms(0), handed: ms(10), now: ms(600)) == .faster)
        pace.stepFailed(.faster)
        #expect(pace.level == 0)
        #expect(pace.fastestLevel == 0)
        #expect(pace.packetLeft(captured: ms(2000), handed: ms(2010), now: ms(2600)) == nil)
    }
}
