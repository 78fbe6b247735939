import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A device going away and coming back while a session runs, and a device two sessions want.
    @Suite(.serialized)
    struct InterruptionTests {
        @Test func disconnectInterruptsAndReconnectResumes() async throws {
            let camera = try makeTestCamera("unplug")
            defer {
                try? camera.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
            }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            let events = EventRecorder(session)
            let delegate = SessionDelegateRecorder(label: "tests.interruption.delegate")
            session.setDelegate(delegate, queue: delegate.queue)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 5))
            #expect(camera.isConnected)

            try camera.simulateDisconnect()
            let unplugged = MonotonicClock.nanoseconds()   // every frame captured from here on is a bug
            #expect(!camera.isConnected)
            let interrupted = EventKind.wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))
            #expect(await events.wait(for: interrupted))
            #expect(session.isInterrupted)
            #expect(session.state == .interrupted)
            #expect(session.isRunning, "an interrupted session is still running")

            // No frames while unplugged. There is no event for "nothing happened", so watch for
            // a while: frames captured before the unplug may still be on their way (how many
            // depends on the machine's load), but none captured after it may arrive.
            let countAtInterruption = recorder.samples.count
            _ = await recorder.samples.wait(timeout: .milliseconds(400)) { $0.count > countAtInterruption + 3 }
            let capturedUnplugged = recorder.samples.items.filter { ($0.sample.presentationTimeStamp.nanoseconds ?? 0) >= unplugged }
            #expect(capturedUnplugged.isEmpty, "frames captured while the camera was unplugged: \(capturedUnplugged.map(\.sequenceNumber))")
            let lastBefore = try #require(recorder.samples.items.last)

            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            #expect(!session.isInterrupted)
            #expect(session.state == .running)
            let countAtReconnect = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: countAtReconnect + 5))
            let after = recorder.samples.items.suffix(5)
            #expect(after.allSatisfy { $0.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp })
            #expect(after.allSatisfy { $0.sequenceNumber > lastBefore.sequenceNumber })
            // Before and after the gap, frames carry their capture times and are accounted for.
            let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")

            try await session.stop()
            #expect(await events.wait(for: .didStopRunning))
            #expect(events.events.items == [.didStartRunning, interrupted, .interruptionEnded, .didStopRunning])
            #expect(await delegate.events.wait(forCount: 4))
            #expect(delegate.events.items == events.events.items)
        }

        /// Recovering from an unplugged camera by switching to another one: once the lost device
        /// is no longer part of the session, nothing is missing any more, so the interruption
        /// must end.
        @Test func replacingLostCameraEndsInterruption() async throws {
            let camera = try makeTestCamera("lost camera")
            let spare = try makeTestCamera("spare camera")
            defer {
                try? camera.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
                CaptureDevice.removeVirtualDevice(spare)
            }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            let lostInput = try #require(session.inputs.first)
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 2))

            try camera.simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))))

            session.beginConfiguration()
            session.removeInput(lostInput)
            try session.addInput(CaptureDeviceInput(device: spare))
            try session.commitConfiguration()

            // Frames of the spare camera flow…
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 3))
            #expect(spare.isInUse)
            #expect(!camera.isInUse)
            // …so the session is no longer interrupted.
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)), "events: \(events.events.items)")
            #expect(session.state == .running)
            #expect(!session.isInterrupted)
        }

        /// Changing the configuration while the camera is unplugged must not lose the stream:
        /// when the camera comes back, capture resumes.
        @Test func reconfiguringWhileInterruptedStillResumes() async throws {
            let camera = try makeTestCamera("reconfigure unplugged") { config in
                config.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)]
            }
            defer {
                try? camera.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
            }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .low, outputs: [output])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 2))

            try camera.simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))))
            // The preset change may be refused (the camera cannot be opened now) or accepted;
            // either way the session must come back when the camera does.
            let change = Result { () throws(CaptureError) in try session.setSessionPreset(.vga640x480) }
            #expect(session.state == .interrupted)

            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)),
                    "preset change \(change), events \(events.events.items)")
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 3, timeout: .seconds(30)), "no frames after the camera came back")
            let width = session.sessionPreset == .vga640x480 ? 640 : 320
            #expect(recorder.samples.items.suffix(2).allSatisfy { $0.width == width })
        }

        @Test func stopWhileInterrupted() async throws {
            let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("unplug mic")))
            defer {
                try? microphone.simulateReconnect()
                CaptureDevice.removeVirtualDevice(microphone)
            }
            let session = CaptureSession()
            try session.addInput(CaptureDeviceInput(device: microphone))
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }

            try microphone.simulateDisconnect()
            let interrupted = EventKind.wasInterrupted(.audioDeviceNotAvailable(deviceID: microphone.uniqueID))
            #expect(await events.wait(for: interrupted))
            #expect(session.isInterrupted)
            // An unplugged device cannot be locked or opened again.
            #expect((#expect(throws: CaptureError.self) { try microphone.lockForConfiguration() })?.code == .deviceDisconnected)
            #expect((#expect(throws: CaptureError.self) { try CaptureDeviceInput(device: microphone) })?.code == .deviceDisconnected)

            try session.stopRunning()
            #expect(session.state == .idle)
            #expect(!session.isInterrupted)
            #expect(!microphone.isInUse)
            #expect(await events.wait(for: .didStopRunning))
            // A reconnect after the stop does not resurrect the session.
            try microphone.simulateReconnect()
            #expect(session.state == .idle)
        }

        @Test func sameDeviceInTwoSessionsIsBusy() async throws {
            let camera = try makeTestCamera("busy")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let firstOutput = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: firstOutput)
            let first = try makeSession(camera: camera, outputs: [firstOutput])
            let second = try makeSession(camera: camera, outputs: [])
            let secondEvents = EventRecorder(second)
            try first.startRunning()
            defer { try? first.stopRunning() }
            #expect(camera.isInUse)

            let error = #expect(throws: CaptureError.self) { try second.startRunning() }
            #expect(error?.code == .deviceBusy)
            #expect(error?.deviceID == camera.uniqueID)
            #expect(second.state == .idle)
            #expect(!second.isRunning)
            let asyncError = await #expect(throws: CaptureError.self) { try await second.start() }
            #expect(asyncError?.code == .deviceBusy)
            #expect(second.state == .idle)
            #expect(await secondEvents.events.wait(forCount: 2))
            #expect(secondEvents.events.items == [.runtimeError(.deviceBusy), .runtimeError(.deviceBusy)])

            // The first session is unaffected and still owns the device.
            #expect(first.state == .running)
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 3))

            // Once the first session stops, the second one can start.
            try first.stopRunning()
            #expect(!camera.isInUse)
            try second.startRunning()
            #expect(second.state == .running)
            #expect(camera.isInUse)
            try second.stopRunning()
        }
    }
}
