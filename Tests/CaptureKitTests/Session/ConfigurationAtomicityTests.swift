import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Begin/commit applying changes all at once (or not at all) while running.
    @Suite(.serialized)
    struct ConfigurationAtomicityTests {
        @Test func changesInOpenBlockApplyAtCommitOnly() async throws {
            let camera = try makeTestCamera("atomic") { config in
                config.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let outputA = CaptureVideoDataOutput()
            let outputB = CaptureVideoDataOutput()
            let recorderA = SampleRecorder(label: "tests.atomic.A")
            let recorderB = SampleRecorder(label: "tests.atomic.B")
            recorderA.attach(to: outputA)
            recorderB.attach(to: outputB)
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [outputA])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorderA.samples.wait(forCount: 3))

            session.beginConfiguration()
            session.removeOutput(outputA)
            try session.addOutput(outputB)
            try session.setSessionPreset(.hd1280x720)
            #expect(session.outputs == [outputB], "staged")
            #expect(session.sessionPreset == .hd1280x720, "staged")

            // Nothing applies while the block is open: A keeps getting 640x480 frames, B nothing.
            let countAtBegin = recorderA.samples.count
            #expect(await recorderA.samples.wait(forCount: countAtBegin + 5))
            #expect(recorderB.samples.count == 0)
            #expect(camera.activeFormat.width == 640)
            #expect(session.connections.compactMap(\.output) == [outputA as CaptureOutput])
            #expect(outputB.connections.isEmpty)

            try session.commitConfiguration()
            let countAtCommit = recorderA.samples.count
            #expect(outputA.connections.isEmpty)
            #expect(outputB.connection(with: .video) != nil)
            #expect(camera.activeFormat.width == 1280 && camera.activeFormat.height == 720)

            #expect(await recorderB.samples.wait(forCount: 5))
            let framesB = recorderB.samples.items
            #expect(framesB.allSatisfy { $0.width == 1280 && $0.height == 720 }, "B only ever sees the new configuration")
            let framesA = recorderA.samples.items
            #expect(framesA.allSatisfy { $0.width == 640 && $0.height == 480 }, "A only ever sees the old configuration")
            // At most what was already handed to A's delivery thread when commit returned: one
            // sample it had dequeued and one waiting in its newest-frame slot.
            #expect(framesA.count - countAtCommit <= 2, "A got \(framesA.count - countAtCommit) frames after commit")
            // Frames that reached A after the commit predate every frame of B.
            if let firstB = framesB.first {
                #expect(framesA.allSatisfy { $0.sample.presentationTimeStamp < firstB.sample.presentationTimeStamp })
            }
            // Each output's frames carry the capture times of the stream it saw, all accounted for.
            for recorder in [recorderA, recorderB] {
                let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration(fps: 30))
                #expect(times.isExact, "\(times)")
                #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            }
        }

        @Test func failedCommitRollsBackAndKeepsRunning() async throws {
            let camera = try makeTestCamera("rollback") { config in
                config.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)]
            }
            let smallCamera = try makeTestCamera("rollback small")   // 320x240 only
            let shrinkingCamera = try makeTestCamera("rollback shrinking") { config in
                config.sizes = [.init(width: 320, height: 240), .init(width: 1280, height: 720)]
            }
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                CaptureDevice.removeVirtualDevice(smallCamera)
                CaptureDevice.removeVirtualDevice(shrinkingCamera)
            }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [output])
            let input = try #require(session.inputs.first)
            let connection = try #require(output.connection(with: .video))
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 3))

            session.beginConfiguration()
            try session.setSessionPreset(.hd1280x720)           // fine for the current camera…
            session.removeInput(input)
            let small = try CaptureDeviceInput(device: smallCamera)   // …but not for this one, which
            #expect(!session.canAddInput(small))                      // is refused as commit would
            let refused = #expect(throws: CaptureError.self) { try session.addInput(small) }
            #expect(refused?.code == .unsupportedPreset)
            // A camera that could do the preset when added, and no longer can at the commit
            // (back with fewer formats), fails the commit as a whole.
            try session.addInput(CaptureDeviceInput(device: shrinkingCamera))
            try shrinkingCamera.simulateDisconnect()
            try shrinkingCamera.simulateReconnect(offering: shrinkingCamera.formats.filter { $0.width == 320 })
            let extra = CaptureVideoDataOutput()
            try session.addOutput(extra)
            let error = #expect(throws: CaptureError.self) { try session.commitConfiguration() }
            #expect(error?.code == .unsupportedPreset)

            // Everything as before.
            #expect(session.inputs == [input])
            #expect(session.outputs == [output])
            #expect(session.sessionPreset == .vga640x480)
            #expect(session.connections == [connection])
            #expect(output.connections == [connection])
            #expect(extra.connections.isEmpty)
            #expect(session.state == .running)
            #expect(camera.activeFormat.width == 640)
            #expect(camera.isInUse)
            #expect(!smallCamera.isInUse && !shrinkingCamera.isInUse)

            // Still delivering the old configuration.
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 5))
            #expect(recorder.samples.items.allSatisfy { $0.width == 640 && $0.height == 480 })
            let sequence = recorder.samples.items.map(\.sequenceNumber)
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 }, "the stream was not restarted")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")

            // And the session can still be configured.
            try session.setSessionPreset(.hd1280x720)
            #expect(await recorder.samples.wait { $0.last?.width == 1280 })
            #expect(!events.events.items.contains { if case .runtimeError = $0 { return true } else { return false } })
        }

        @Test func failedCommitWithBusyDeviceRollsBack() async throws {
            let camera = try makeTestCamera("busy rollback A")
            let busyCamera = try makeTestCamera("busy rollback B")
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                CaptureDevice.removeVirtualDevice(busyCamera)
            }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            let input = try #require(session.inputs.first)
            let owner = try makeSession(camera: busyCamera, outputs: [])
            try owner.startRunning()
            defer { try? owner.stopRunning() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 3))

            session.beginConfiguration()
            session.removeInput(input)
            try session.addInput(CaptureDeviceInput(device: busyCamera))
            let error = #expect(throws: CaptureError.self) { try session.commitConfiguration() }
            #expect(error?.code == .deviceBusy)

            #expect(session.inputs == [input])
            #expect(session.state == .running)
            #expect(camera.isInUse)
            #expect(owner.state == .running, "the other session keeps its camera")
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 3), "the session delivers again after the rollback")
        }

        @Test func unchangedStreamKeepsFlowingAcrossCommit() async throws {
            let camera = try makeTestCamera("keeps flowing") { config in
                config.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let outputA = CaptureVideoDataOutput()
            let recorderA = SampleRecorder(label: "tests.flowing.A")
            recorderA.attach(to: outputA)
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [outputA])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorderA.samples.wait(forCount: 3))

            // Same format (.medium is 640x480 NV12 here too) and one more output: the device
            // stream is not restarted, so A's frames run on without a reset.
            let outputB = CaptureVideoDataOutput()
            let recorderB = SampleRecorder(label: "tests.flowing.B")
            recorderB.attach(to: outputB)
            session.beginConfiguration()
            try session.setSessionPreset(.medium)
            try session.addOutput(outputB)
            try session.commitConfiguration()
            let sequenceAtCommit = try #require(recorderA.samples.items.last?.sequenceNumber)
            #expect(await recorderB.samples.wait(forCount: 3))
            let count = recorderA.samples.count
            #expect(await recorderA.samples.wait(forCount: count + 3))

            let sequenceA = recorderA.samples.items.map(\.sequenceNumber)
            #expect(zip(sequenceA, sequenceA.dropFirst()).allSatisfy { $1 > $0 }, "A's stream was restarted: \(sequenceA)")
            let times = FrameTimestamps(recorderA.samples.items, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
            #expect(recorderA.accounting.isComplete, "\(recorderA.accounting)")
            #expect(recorderB.samples.items.allSatisfy { $0.sequenceNumber > sequenceAtCommit - 2 })
            #expect(recorderB.samples.items.allSatisfy { $0.width == 640 })
        }
    }
}

/// What can be added to a session, and device configuration locking: no session runs.
@Suite
struct SessionCompositionTests {
    // MARK: Inputs and outputs

    @Test func duplicateAndSecondVideoInputsAreRefused() throws {
        let camera = try makeTestCamera("inputs A")
        let otherCamera = try makeTestCamera("inputs B")
        let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("inputs mic")))
        defer {
            CaptureDevice.removeVirtualDevice(camera)
            CaptureDevice.removeVirtualDevice(otherCamera)
            CaptureDevice.removeVirtualDevice(microphone)
        }
        let session = CaptureSession()
        let input = try CaptureDeviceInput(device: camera)
        #expect(session.canAddInput(input))
        try session.addInput(input)

        #expect(!session.canAddInput(input), "the same input twice")
        let duplicate = #expect(throws: CaptureError.self) { try session.addInput(input) }
        #expect(duplicate?.code == .cannotAddInput)

        let second = try CaptureDeviceInput(device: otherCamera)
        #expect(!session.canAddInput(second), "a second video input")
        let secondError = #expect(throws: CaptureError.self) { try session.addInput(second) }
        #expect(secondError?.code == .cannotAddInput)

        let sameDeviceAgain = try CaptureDeviceInput(device: camera)
        #expect(!session.canAddInput(sameDeviceAgain))

        // A microphone does not clash with a camera.
        let audio = try CaptureDeviceInput(device: microphone)
        #expect(session.canAddInput(audio))
        try session.addInput(audio)
        #expect(session.inputs == [input, audio])

        // After removing the camera, another one fits.
        session.removeInput(input)
        #expect(session.canAddInput(second))
        try session.addInput(second)
        #expect(session.inputs == [audio, second])
    }

    @Test func duplicateOutputIsRefused() throws {
        let session = CaptureSession()
        let output = CaptureVideoDataOutput()
        #expect(session.canAddOutput(output))
        try session.addOutput(output)
        #expect(!session.canAddOutput(output))
        let error = #expect(throws: CaptureError.self) { try session.addOutput(output) }
        #expect(error?.code == .cannotAddOutput)
        #expect(session.outputs == [output])
        // Two different outputs of one kind are fine.
        let another = CaptureVideoDataOutput()
        #expect(session.canAddOutput(another))
        try session.addOutput(another)
        #expect(session.outputs == [output, another])
    }

    @Test func outputOfAnotherSessionIsRefused() throws {
        let first = CaptureSession()
        let second = CaptureSession()
        let output = CaptureAudioDataOutput()
        try first.addOutput(output)

        #expect(!second.canAddOutput(output))
        let error = #expect(throws: CaptureError.self) { try second.addOutput(output) }
        #expect(error?.code == .cannotAddOutput)
        #expect(second.outputs.isEmpty)

        first.removeOutput(output)
        #expect(second.canAddOutput(output), "once removed from the first session it is free")
        try second.addOutput(output)
        #expect(!first.canAddOutput(output))
    }

    /// An output staged in one session's open configuration block belongs to that session:
    /// another session must not be able to take it as well.
    @Test func outputStagedInAnotherSessionIsRefused() throws {
        let first = CaptureSession()
        let second = CaptureSession()
        let output = CaptureVideoDataOutput()
        first.beginConfiguration()
        try first.addOutput(output)

        #expect(!second.canAddOutput(output), "the output is already staged in another session")
        #expect(throws: CaptureError.self) { try second.addOutput(output) }
        try first.commitConfiguration()
        #expect(first.outputs == [output])
        #expect(second.outputs.isEmpty, "an output must never be in two sessions")
    }

    // MARK: Device lock

    @Test func deviceSettingsRequireLockForConfiguration() throws {
        let camera = try makeTestCamera("lock") { $0.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let target = try #require(camera.formats.first { $0.width == 640 })
        let before = camera.activeFormat
        #expect(!camera.isLockedForConfiguration)

        let error = #expect(throws: CaptureError.self) { try camera.setActiveFormat(target) }
        #expect(error?.code == .deviceNotLockedForConfiguration)
        #expect(error?.deviceID == camera.uniqueID)
        let rateError = #expect(throws: CaptureError.self) { try camera.setActiveVideoMinFrameDuration(frameDuration(fps: 15)) }
        #expect(rateError?.code == .deviceNotLockedForConfiguration)
        #expect(camera.activeFormat == before)

        try camera.lockForConfiguration()
        try camera.lockForConfiguration()   // nests
        #expect(camera.isLockedForConfiguration)
        try camera.setActiveFormat(target)
        #expect(camera.activeFormat == target)
        #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 30), "a new format starts at 30 fps")
        try camera.setActiveVideoMinFrameDuration(frameDuration(fps: 15))
        #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 15))
        #expect(camera.activeVideoMaxFrameDuration == frameDuration(fps: 15), "max follows a longer min")
        try camera.setActiveVideoMinFrameDuration(.invalid)
        #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 30), ".invalid restores the default")

        // Things the device cannot do are refused even when locked.
        let foreign = CaptureDevice.Format(pixelFormat: .nv12, width: 4096, height: 2160, frameRateRanges: [.init(fps: 30)])
        #expect((#expect(throws: CaptureError.self) { try camera.setActiveFormat(foreign) })?.code == .unsupportedFormat)
        #expect((#expect(throws: CaptureError.self) { try camera.setActiveVideoMinFrameDuration(frameDuration(fps: 24)) })?.code == .unsupportedFormat)

        camera.unlockForConfiguration()
        #expect(camera.isLockedForConfiguration, "one unlock per lock")
        camera.unlockForConfiguration()
        #expect(!camera.isLockedForConfiguration)
        #expect(throws: CaptureError.self) { try camera.setActiveFormat(before) }
    }
}
