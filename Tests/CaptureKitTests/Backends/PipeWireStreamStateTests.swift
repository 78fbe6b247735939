import Testing
@testable import CaptureKit

/// The lifecycle both PipeWire capture streams share, transition by transition.
@Suite(.excludable)
struct PipeWireStreamStateTests {
    @Test func opensRunsLosesAndReopens() {
        var state = PipeWireStreamState<Int>()
        state.handle = 1
        let connecting = state.streamStateChanged(1, error: nil)
        #expect(!connecting, "connecting wakes no one")
        let streaming = state.streamStateChanged(3, error: nil)
        #expect(streaming && state.phase == .running)
        let again = state.streamStateChanged(3, error: nil)
        #expect(!again, "streaming again wakes no one")
        let lost = state.lose(closingLater: true)
        #expect(lost == 1 && state.phase == .lost && state.handle == nil)
        let lostTwice = state.lose()
        #expect(lostTwice == nil, "lost once")
        let early = state.reopen()
        #expect(!early, "not before the lost stream is closed")
        state.closed()
        let reopened = state.reopen()
        #expect(reopened && state.phase == .opening)
        let twice = state.reopen()
        #expect(!twice)
    }

    @Test func aFailedOpeningIsLostUnlessStopped() {
        var state = PipeWireStreamState<Int>()
        state.handle = 2
        let failed = state.streamStateChanged(-1, error: "no node available")
        #expect(failed, "failing while opening wakes the opener")
        #expect(state.failure == "no node available")
        let abandoned = state.abandonOpening()
        #expect(abandoned == 2 && state.phase == .lost)
        let reopened = state.reopen()
        #expect(reopened && state.failure == nil)
        state.handle = 3
        let stopped = state.stop()
        #expect(stopped == 3)
        let late = state.abandonOpening()
        #expect(late == nil && state.phase == .stopped, "stopped stays stopped")
        let afterStop = state.reopen()
        #expect(!afterStop)
    }

    @Test func anEndWhileRunningKeepsTheFirstReason() {
        var state = PipeWireStreamState<Int>()
        _ = state.streamStateChanged(3, error: nil)
        let gone = state.streamStateChanged(-1, error: "the PipeWire daemon went away")
        #expect(!gone, "no opener to wake while running")
        let unconnected = state.streamStateChanged(0, error: nil)
        #expect(!unconnected)
        #expect(state.failure == "the PipeWire daemon went away")
    }
}
