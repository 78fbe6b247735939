import Testing
@testable import CaptureKit

/// The session's lifecycle rules, without a session or a device: every transition, the ones
/// that are refused, and what each asks the session to do.
@Suite(.excludable)
struct SessionLifecycleTests {
    private func running() throws -> SessionLifecycle {
        var lifecycle = SessionLifecycle()
        let starts = try lifecycle.start(configurationDepth: 0)
        #expect(starts)
        lifecycle.started()
        return lifecycle
    }

    @Test func startAndStopGoThroughTheirIntermediateStates() throws {
        var lifecycle = SessionLifecycle()
        #expect(lifecycle.state == .idle && !lifecycle.streamsRun)
        let starts = try lifecycle.start(configurationDepth: 0)
        #expect(starts && lifecycle.state == .starting && !lifecycle.streamsRun)
        lifecycle.started()
        #expect(lifecycle.state == .running && lifecycle.streamsRun)
        let stops = lifecycle.stop()
        #expect(stops && lifecycle.state == .stopping && !lifecycle.streamsRun)
        lifecycle.stopped()
        #expect(lifecycle == SessionLifecycle())
    }

    @Test func aFailedStartIsIdleAgain() throws {
        var lifecycle = SessionLifecycle()
        _ = try lifecycle.start(configurationDepth: 0)
        lifecycle.startFailed()
        #expect(lifecycle.state == .idle)
        let again = try lifecycle.start(configurationDepth: 0)
        #expect(again && lifecycle.state == .starting, "and can be started again")
    }

    /// As AVFoundation's: starting what runs and stopping what does not are no-ops, starting
    /// inside a configuration block is a mistake.
    @Test func repeatedStartsAndStopsDoNothingAndStartingInABlockIsRefused() throws {
        var idle = SessionLifecycle()
        let stopsIdle = idle.stop()
        #expect(!stopsIdle)
        let inBlock = #expect(throws: CaptureError.self) { try idle.start(configurationDepth: 1) }
        #expect(inBlock?.code == .invalidState && inBlock?.message.contains("beginConfiguration") == true)
        #expect(idle == SessionLifecycle())

        var lifecycle = try running()
        let twice = try lifecycle.start(configurationDepth: 0)
        #expect(!twice)
        #expect(lifecycle.state == .running)
        #expect(throws: CaptureError.self) { try lifecycle.start(configurationDepth: 1) }
        #expect(lifecycle.state == .running, "a refused start inside a block leaves it running")

        _ = lifecycle.deviceLost("camera")
        let whileInterrupted = try lifecycle.start(configurationDepth: 0)
        #expect(!whileInterrupted && lifecycle.state == .interrupted)

        let stops = lifecycle.stop()
        #expect(stops)
        let stopsAgain = lifecycle.stop()
        let startsWhileStopping = try lifecycle.start(configurationDepth: 0)
        #expect(!stopsAgain && !startsWhileStopping)
        #expect(lifecycle.state == .stopping)
    }

    @Test func theFirstLossInterruptsAndTheLastReturnResumes() throws {
        var lifecycle = try running()
        let firstLoss = lifecycle.deviceLost("camera")
        #expect(firstLoss == .interrupt)
        #expect(lifecycle.state == .interrupted && lifecycle.streamsRun)
        let secondLoss = lifecycle.deviceLost("microphone")
        #expect(secondLoss == .none, "already interrupted")
        let cameraBack = lifecycle.deviceReturned("camera", resumes: true)
        #expect(cameraBack == .resume(endsInterruption: false))
        #expect(lifecycle.state == .interrupted, "the microphone is still away")
        let microphoneBack = lifecycle.deviceReturned("microphone", resumes: true)
        #expect(microphoneBack == .resume(endsInterruption: true))
        #expect(lifecycle.state == .running && lifecycle.lostDevices.isEmpty)
    }

    @Test func aSessionThatDoesNotResumeStaysInterruptedUntilStopped() throws {
        var lifecycle = try running()
        _ = lifecycle.deviceLost("camera")
        let back = lifecycle.deviceReturned("camera", resumes: false)
        #expect(back == .stayInterrupted)
        #expect(lifecycle.state == .interrupted && lifecycle.lostDevices == ["camera"])
        _ = lifecycle.stop()
        lifecycle.stopped()
        #expect(lifecycle.lostDevices.isEmpty, "the next start opens whatever is there")
    }

    @Test func removingTheLostInputEndsTheInterruption() throws {
        var lifecycle = try running()
        _ = lifecycle.deviceLost("camera")
        _ = lifecycle.deviceLost("microphone")
        let endedWhileUsed = lifecycle.inputsChanged(to: ["camera", "other"])
        #expect(!endedWhileUsed, "the camera is still used and still away")
        #expect(lifecycle.lostDevices == ["camera"])
        let endedWhenRemoved = lifecycle.inputsChanged(to: ["other"])
        #expect(endedWhenRemoved)
        #expect(lifecycle.state == .running)
    }

    @Test func aLossWhileNotRunningIsRememberedWithoutInterrupting() throws {
        var lifecycle = SessionLifecycle()
        _ = try lifecycle.start(configurationDepth: 0)
        let lostWhileStarting = lifecycle.deviceLost("camera")
        #expect(lostWhileStarting == .none)
        #expect(lifecycle.state == .starting && lifecycle.lostDevices == ["camera"])
        let resumedWhileStarting = lifecycle.inputsChanged(to: ["camera"])
        #expect(!resumedWhileStarting, "only an interrupted session resumes")
    }
}
