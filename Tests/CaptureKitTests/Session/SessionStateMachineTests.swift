import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The session lifecycle: legal and illegal transitions, and the events they produce.
    @Suite(.serialized)
    struct SessionStateMachineTests {
        @Test func lifecycleWithBlockingCalls() throws {
            let camera = try makeTestCamera("lifecycle")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let session = try makeSession(camera: camera, outputs: [output])
            let connection = try #require(output.connection(with: .video))
            #expect(session.state == .idle)
            #expect(!connection.isActive)
            #expect(!camera.isInUse)

            try session.startRunning()
            #expect(session.state == .running)
            #expect(session.isRunning)
            #expect(!session.isInterrupted)
            #expect(connection.isActive)
            #expect(camera.isInUse)

            // As on AVFoundation, starting a running session returns quietly.
            try session.startRunning()
            #expect(session.state == .running)
            #expect(connection.isActive && camera.isInUse)

            try session.stopRunning()
            #expect(session.state == .idle)
            #expect(!session.isRunning)
            #expect(!connection.isActive)
            #expect(!camera.isInUse)
            try session.stopRunning()
            #expect(session.state == .idle, "stopping a stopped session returns quietly")

            // And again: a stopped session can be restarted.
            try session.startRunning()
            #expect(session.state == .running)
            try session.stopRunning()
            #expect(session.state == .idle)
        }

        @Test func startRunningInsideConfigurationBlockIsInvalidState() throws {
            let camera = try makeTestCamera("start in block")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            session.beginConfiguration()
            let error = #expect(throws: CaptureError.self) { try session.startRunning() }
            #expect(error?.code == .invalidState)
            #expect(session.state == .idle)
            #expect(!camera.isInUse)
            try session.commitConfiguration()
            try session.startRunning()
            #expect(session.state == .running)
            try session.stopRunning()
        }

        @Test func lifecycleWithAsyncCalls() async throws {
            let camera = try makeTestCamera("async lifecycle")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])

            try await session.stop()
            #expect(session.state == .idle, "stopping an idle session returns quietly")

            try await session.start()
            #expect(session.state == .running)
            try await session.start()
            #expect(session.state == .running && camera.isInUse)

            try await session.stop()
            #expect(session.state == .idle)
            try await session.stop()
            #expect(session.state == .idle && !camera.isInUse)

            session.beginConfiguration()
            let startInBlock = await #expect(throws: CaptureError.self) { try await session.start() }
            #expect(startInBlock?.code == .invalidState)
            try session.commitConfiguration()
            #expect(session.state == .idle)
        }

        /// Starts of a running session and stops of a stopped one post nothing: one
        /// `.didStartRunning` and one `.didStopRunning` whatever the number of calls, from
        /// several threads at once too (the article starts from two places).
        @Test func repeatedStartsAndStopsPostOneEventEach() async throws {
            let camera = try makeTestCamera("repeated starts")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            let events = EventRecorder(session)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await session.start() } }
                try await group.waitForAll()
            }
            try session.startRunning()
            #expect(session.state == .running)
            try session.stopRunning()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await session.stop() } }
                try await group.waitForAll()
            }
            // A marker: once its start is seen, every earlier event has been posted.
            try await session.start()
            #expect(await events.events.wait(forCount: 3))
            #expect(events.events.items == [.didStartRunning, .didStopRunning, .didStartRunning])
            try await session.stop()
        }

        /// Starting inside a configuration block is still a mistake, also while running, and
        /// leaves the session as it was.
        @Test func startingARunningSessionInsideABlockIsInvalidState() async throws {
            let camera = try makeTestCamera("start running in block")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            try await session.start()
            session.beginConfiguration()
            let error = #expect(throws: CaptureError.self) { try session.startRunning() }
            #expect(error?.code == .invalidState)
            try session.commitConfiguration()
            #expect(session.state == .running)
            try await session.stop()
        }

        @Test func eventsStreamDeliversStartThenStopInOrder() async throws {
            let camera = try makeTestCamera("events")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            let first = EventRecorder(session)
            let second = EventRecorder(session)   // every access to `events` is an independent stream

            try await session.start()
            try await session.stop()
            try session.startRunning()
            try session.stopRunning()

            let expected: [EventKind] = [.didStartRunning, .didStopRunning, .didStartRunning, .didStopRunning]
            for recorder in [first, second] {
                #expect(await recorder.events.wait(forCount: 4))
                #expect(recorder.events.items == expected)
            }
            // A stop of a stopped session posts nothing.
            try session.stopRunning()
            let late = EventRecorder(session)
            try session.startRunning()
            #expect(await late.wait(for: .didStartRunning))
            #expect(late.events.items == [.didStartRunning], "a stream sees only events from its creation on")
            try session.stopRunning()
            #expect(await first.events.wait(forCount: 6))
            #expect(first.events.items == expected + [.didStartRunning, .didStopRunning])
        }

        @Test func delegateGetsSameEventsOnItsQueue() async throws {
            let camera = try makeTestCamera("delegate")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            let delegate = SessionDelegateRecorder(label: "tests.sessionDelegate")
            session.setDelegate(delegate, queue: delegate.queue)
            let stream = EventRecorder(session)

            try await session.start()
            try await session.stop()

            #expect(await delegate.events.wait(forCount: 2))
            #expect(delegate.events.items == [.didStartRunning, .didStopRunning])
            #expect(await stream.events.wait(forCount: 2))
            #expect(stream.events.items == delegate.events.items)
            #expect(delegate.allCallsOnQueue, "delegate calls arrive on the queue given to setDelegate")

            // Removing the delegate stops the calls.
            session.setDelegate(nil, queue: nil)
            try await session.start()
            try await session.stop()
            #expect(await stream.events.wait(forCount: 4))
            delegate.queue.sync {}   // anything already queued for the delegate has run
            #expect(delegate.events.count == 2)
        }

        @Test func failedStartLeavesSessionIdle() async throws {
            let camera = try makeTestCamera("failed start")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            let events = EventRecorder(session)
            try camera.simulateDisconnect()
            let error = #expect(throws: CaptureError.self) { try session.startRunning() }
            #expect(error?.code == .deviceDisconnected)
            #expect(session.state == .idle)
            #expect(!camera.isInUse)
            try camera.simulateReconnect()
            try await session.start()
            #expect(session.state == .running)
            try await session.stop()
            #expect(await events.events.wait(forCount: 3))
            #expect(events.events.items == [.runtimeError(.deviceDisconnected), .didStartRunning, .didStopRunning])
        }

        @Test func failedStartStopsWhatAlreadyStarted() async throws {
            let camera = try makeTestCamera("half start")
            let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("half start mic")))
            defer {
                try? microphone.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
                CaptureDevice.removeVirtualDevice(microphone)
            }
            let session = CaptureSession()
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.addInput(CaptureDeviceInput(device: microphone))
            try session.commitConfiguration()
            try microphone.simulateDisconnect()

            let error = await #expect(throws: CaptureError.self) { try await session.start() }
            #expect(error?.code == .deviceDisconnected)
            #expect(session.state == .idle)
            #expect(!camera.isInUse, "nothing half-started")
            #expect(!microphone.isInUse)
        }

        @Test func releasingRunningSessionStopsCapture() async throws {
            let camera = try makeTestCamera("released session")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            weak var released: CaptureSession?
            do {
                let session = try makeSession(camera: camera, outputs: [output])
                released = session
                try await session.start()
                #expect(await recorder.samples.wait(forCount: 2))
                #expect(camera.isInUse)
            }
            #expect(released == nil, "nothing keeps a session alive but its owner")
            #expect(!camera.isInUse, "a released session gives its devices back")
            // The device can be used again at once.
            let again = try makeSession(camera: camera, outputs: [])
            try again.startRunning()
            try again.stopRunning()
        }
    }
}

/// The session's configuration rules, which no running session is needed for.
@Suite
struct SessionConfigurationRulesTests {
    @Test func stopRunningWhenIdleReturnsQuietly() throws {
        let session = CaptureSession()
        #expect(session.state == .idle)
        try session.stopRunning()
        #expect(session.state == .idle)
        #expect(!session.isRunning)
    }

    @Test func commitWithoutBeginIsInvalidState() throws {
        let session = CaptureSession()
        let error = #expect(throws: CaptureError.self) { try session.commitConfiguration() }
        #expect(error?.code == .invalidState)
        // One begin allows exactly one commit.
        session.beginConfiguration()
        try session.commitConfiguration()
        let again = #expect(throws: CaptureError.self) { try session.commitConfiguration() }
        #expect(again?.code == .invalidState)
    }

    @Test func nestedBlocksApplyAtOutermostCommit() throws {
        let camera = try makeTestCamera("nested blocks")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        let output = CaptureVideoDataOutput()
        session.beginConfiguration()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.addOutput(output)
        try session.commitConfiguration()
        #expect(session.connections.isEmpty, "the inner commit must not apply")
        #expect(session.outputs == [output], "staged changes are visible")
        try session.commitConfiguration()
        #expect(session.connections.count == 1)
        #expect(output.connection(with: .video) != nil)
    }
}
