import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitPreview

extension RealTimeCaptureTests {
    /// Cameras that come back: a session resumes by itself when the same device returns, a
    /// recording can go on through the gap, and what cannot resume says why.
    @Suite(.serialized)
    struct DeviceReturnTests {
        /// A running session on a test camera with one video data output and its recorder, the
        /// set-up every virtual-camera test here shares.
        private struct Rig {
            let camera: CaptureDevice
            let recorder = SampleRecorder()
            let session: CaptureSession
            let events: EventRecorder

            init(_ label: String, preset: CaptureSession.Preset = .high, resumes: Bool = true,
                 configure: (inout VirtualCameraConfiguration) -> Void = { _ in }) throws {
                camera = try makeTestCamera(label, configure: configure)
                let output = CaptureVideoDataOutput()
                recorder.attach(to: output)
                session = try makeSession(camera: camera, preset: preset, outputs: [output])
                session.resumesWhenDevicesReturn = resumes
                events = EventRecorder(session)
            }

            var interrupted: EventKind { .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID)) }

            /// Starts the session and waits for `frames` frames.
            func start(waitingFor frames: Int) async throws {
                try await session.start()
                #expect(await recorder.samples.wait(forCount: frames, timeout: .seconds(30)))
            }

            /// Unplugs the camera and waits for the interruption.
            func unplug() async throws {
                try camera.simulateDisconnect()
                #expect(await events.wait(for: interrupted))
            }

            func tearDown() {
                try? session.stopRunning()
                try? camera.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
            }
        }

        /// Puts a recording session's camera back and removes its devices.
        private static func tearDown(_ camera: CaptureDevice, _ microphone: CaptureDevice?) {
            try? camera.simulateReconnect()
            CaptureDevice.removeVirtualDevice(camera)
            if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
        }

        /// Unplugged and plugged back: `.interruptionEnded`, frames flow again, the gap is one
        /// `.discontinuity` report covering the frames the camera missed, and timestamps stay on
        /// the same grid (capture times, frame durations apart as their sequence numbers).
        @Test func sessionResumesAfterReplugWithTheGapReported() async throws {
            let rig = try Rig("replug")
            defer { rig.tearDown() }
            let (camera, recorder, session, events) = (rig.camera, rig.recorder, rig.session, rig.events)
            try await rig.start(waitingFor: 5)
            try await rig.unplug()
            let before = try #require(recorder.samples.items.last)
            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            #expect(session.state == .running)
            let countAtReturn = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: countAtReturn + 5, timeout: .seconds(30)))
            try await session.stop()

            let accounting = recorder.accounting
            #expect(accounting.isComplete, "\(accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
            // Frames from after the return came (the gap between, however long, is in the accounting).
            #expect(recorder.samples.items.contains { $0.sequenceNumber > before.sequenceNumber })
            #expect(await events.wait(for: .didStopRunning))
            #expect(events.events.items == [.didStartRunning, rig.interrupted, .interruptionEnded, .didStopRunning])
        }

        /// `.continueRecording`: one file through the camera's absence. The picture holds over
        /// the gap (no packets there), the sound goes on, the gap is in `videoGaps`, and every
        /// frame slot missing from the file was reported dropped.
        @Test func recordingContinuesInTheSameFileAfterReplug() async throws {
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let audio = CaptureAudioDataOutput()
            let sound = SampleRecorder(label: "tests.replug.audio")
            sound.attach(to: audio)
            // The movie takes every frame the device delivers (or counts it dropped): a data
            // output beside it says when frames came.
            let video = CaptureVideoDataOutput()
            let frames = SampleRecorder(label: "tests.replug.video")
            frames.attach(to: video)
            let (session, camera, microphone) = try makeRecordingSession("replug recording", outputs: [movie, audio, video])
            defer { Self.tearDown(camera, microphone) }
            let events = EventRecorder(session)
            let delegate = RecordingRecorder()
            let url = MovieFiles.path("replug", "mov")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
            let framesAtStart = frames.samples.count
            #expect(await frames.samples.wait(forCount: framesAtStart + 10, timeout: .seconds(30)))

            let lostAt = MonotonicClock.nanoseconds()
            try camera.simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))))
            // Half a second of sound captured while the camera is away (by capture time, so late
            // deliveries of older sound do not count).
            #expect(await sound.waitUntilCaptured(50, of: MediaTime(value: 1, timescale: 100), after: lostAt) != nil)
            #expect(movie.isRecording, "the recording went on without the camera")
            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            let framesAtReturn = frames.samples.count
            #expect(await frames.samples.wait(forCount: framesAtReturn + 10, timeout: .seconds(30)))
            let recorded = await movie.finishRecording()
            try await session.stop()

            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            #expect(delegate.calls.items == [.didStart, .willFinish, .didFinish(nil, usable: true)])
            #expect(recorded.videoGaps.count == 1, "\(recorded.videoGaps)")
            let gap = try #require(recorded.videoGaps.first)
            #expect(gap.duration.seconds >= 0.45, "the camera was away while 0.5 s of sound came: gap \(gap.duration.seconds) s")
            let probe = try ProbedMovie.probe(url.path)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration(fps: 30))
            timeline.expectAccounted(recorded, probe: probe)
            // The file's picture pauses where the recording says, and the sound covers it.
            let steps = zip(timeline.times, timeline.times.dropFirst()).map { $1 - $0 }
            let longest = try #require(steps.max())
            #expect(abs(longest - (gap.duration.seconds + 1.0 / 30)) < 0.002, "longest packet step \(longest) s, gap \(gap.duration.seconds) s")
            let soundTrack = try #require(probe.audio)
            #expect(abs(soundTrack.startTime + soundTrack.duration - timeline.end) <= 1.0 / 30,
                    "sound ends at \(soundTrack.startTime + soundTrack.duration) s, picture at \(timeline.end) s")
        }

        /// `.startNewRecording`: the file is finished at the loss (complete, `.deviceDisconnected`)
        /// and the next one, named after it, starts by itself when the camera is back; each file
        /// holds only its side of the gap, and the second starts after the first ends.
        @Test func recordingStartsItsNextFileWhenTheCameraReturns() async throws {
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .startNewRecording
            let video = CaptureVideoDataOutput()
            let frames = SampleRecorder(label: "tests.replug.series")
            frames.attach(to: video)
            let (session, camera, microphone) = try makeRecordingSession("replug series", outputs: [movie, video])
            defer { Self.tearDown(camera, microphone) }
            let events = EventRecorder(session)
            let delegate = RecordingRecorder()
            let first = MovieFiles.path("series", "mov")
            let expectedSecond = first.deletingLastPathComponent()
                .appendingPathComponent(first.deletingPathExtension().lastPathComponent + "-2.mov")
            defer {
                try? FileManager.default.removeItem(at: first)
                try? FileManager.default.removeItem(at: expectedSecond)
            }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: first, recordingDelegate: delegate)
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
            let framesAtStart = frames.samples.count
            #expect(await frames.samples.wait(forCount: framesAtStart + 10, timeout: .seconds(30)))

            try camera.simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))))
            #expect(await delegate.finished() == .didFinish(.deviceDisconnected, usable: true))
            let firstMovie = try #require(movie.lastRecordedMovie)
            #expect(firstMovie.url == first)
            #expect(movie.isRecording, "the series waits for the camera")
            #expect(throws: CaptureError.self) { try movie.startRecording(to: MovieFiles.path("other", "mov")) }
            let lastBefore = try #require(frames.samples.items.last)

            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.filter { $0 == .didStart }.count == 2 }, "\(delegate.calls.items)")
            #expect(movie.outputFileURL == expectedSecond)
            let framesAtReturn = frames.samples.count
            #expect(await frames.samples.wait(forCount: framesAtReturn + 10, timeout: .seconds(30)))
            let secondMovie = await movie.finishRecording()
            try await session.stop()
            #expect(!movie.isRecording)

            #expect(secondMovie.url == expectedSecond && secondMovie.error == nil, "\(secondMovie)")
            #expect(delegate.calls.items == [.didStart, .willFinish, .didFinish(.deviceDisconnected, usable: true),
                                             .didStart, .willFinish, .didFinish(nil, usable: true)])
            for recorded in [firstMovie, secondMovie] {
                #expect(recorded.videoGaps.isEmpty, "\(recorded.url.lastPathComponent): \(recorded.videoGaps)")
                let probe = try ProbedMovie.probe(recorded.url.path)
                let timeline = try MovieTimeline(recorded.url.path, frameDuration: frameDuration(fps: 30))
                timeline.expectAccounted(recorded, probe: probe)
                #expect(recorded.videoFrameCount >= 10, "\(recorded.url.lastPathComponent): \(recorded.videoFrameCount) frames")
            }
            // The first file ends with the last frame before the loss; the second begins after it.
            let firstAfter = try #require(frames.samples.items.first { $0.sequenceNumber > lastBefore.sequenceNumber })
            #expect(firstAfter.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp)
        }

        /// Stopped while it waits for the camera: no next file, and `isRecording` is false.
        @Test func aSeriesStoppedWhileTheCameraIsAwayStartsNoNextFile() async throws {
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .startNewRecording
            let (session, camera, microphone) = try makeRecordingSession("replug series stop", outputs: [movie])
            defer { Self.tearDown(camera, microphone) }
            let events = EventRecorder(session)
            let delegate = RecordingRecorder()
            let first = MovieFiles.path("series-stop", "mov")
            let next = first.deletingLastPathComponent().appendingPathComponent(first.deletingPathExtension().lastPathComponent + "-2.mov")
            defer { try? FileManager.default.removeItem(at: first) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: first, recordingDelegate: delegate)
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
            try camera.simulateDisconnect()
            #expect(await delegate.finished() == .didFinish(.deviceDisconnected, usable: true))
            #expect(movie.isRecording)
            let last = await movie.finishRecording()
            #expect(last.url == first)
            #expect(!movie.isRecording)
            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            // The outputs hear of the return before the event is posted: had the movie output
            // started a file, it would be recording now.
            #expect(!movie.isRecording)
            #expect(delegate.calls.items.filter { $0 == .didStart }.count == 1)
            #expect(!FileManager.default.fileExists(atPath: next.path))
        }

        /// The web preview shows the camera again: its viewer gets new pictures after the
        /// return, made from frames captured after it.
        @Test func aWebPreviewShowsTheCameraAgainAfterReplug() async throws {
            let rig = try Rig("replug preview")
            defer { rig.tearDown() }
            let preview = try CaptureWebPreview(session: rig.session)
            defer { preview.stop() }
            try await rig.start(waitingFor: 5)
            let viewer = try RawHTTPViewer(port: preview.port, path: "/stream.mjpg?token=\(preview.accessToken)", chunk: 65536, pause: 0)
            defer { viewer.disconnect() }
            #expect(await pollUntil { viewer.partCount >= 3 }, "the viewer got no pictures")
            try await rig.unplug()
            try rig.camera.simulateReconnect()
            #expect(await rig.events.wait(for: .interruptionEnded))
            let returned = MonotonicClock.nanoseconds()
            // Pictures of frames captured after the return.
            #expect(await rig.recorder.waitUntilCaptured(3, of: rig.camera.activeVideoMinFrameDuration, after: returned) != nil)
            let encodedAtReturn = preview.statistics.framesEncoded, partsAtReturn = viewer.partCount
            #expect(await pollUntil { preview.statistics.framesEncoded > encodedAtReturn + 2 && viewer.partCount > partsAtReturn + 2 },
                    "encoded \(preview.statistics.framesEncoded - encodedAtReturn), viewed \(viewer.partCount - partsAtReturn) after the return")
        }

        /// With resuming off, a returned camera leaves the session interrupted until it is
        /// stopped and started again.
        @Test func noResumeWhenResumingIsOff() async throws {
            let rig = try Rig("no resume", resumes: false)
            defer { rig.tearDown() }
            let (camera, recorder, session, events) = (rig.camera, rig.recorder, rig.session, rig.events)
            try await rig.start(waitingFor: 3)
            try await rig.unplug()
            let returnedAt = MonotonicClock.nanoseconds()
            try camera.simulateReconnect()
            // Nothing is meant to happen, and "nothing" has no event: watch for a while.
            let resumed = await events.events.wait(timeout: .milliseconds(500)) { $0.contains(.interruptionEnded) }
            #expect(!resumed)
            #expect(session.state == .interrupted)
            // Frames captured before the loss may still arrive late; none captured after the
            // return may (by capture time, whatever the load).
            let leaked = recorder.samples.items.filter { (($0.sample.presentationTimeStamp + $0.sample.duration).nanoseconds ?? .max) > returnedAt + 1_000_000 }
            #expect(leaked.isEmpty, "frames captured after the return flowed: \(leaked.map(\.sequenceNumber))")

            try await session.stop()
            try await session.start()
            #expect(session.state == .running)
            let countAtRestart = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: countAtRestart + 3, timeout: .seconds(30)))
        }

        /// A camera back without the format it was capturing in: the session says why and stays
        /// interrupted; when it returns as it was, the session resumes.
        @Test func aReturnedCameraWithoutItsFormatLeavesTheSessionInterrupted() async throws {
            let rig = try Rig("fewer formats", preset: .inputPriority) {
                $0.sizes = [.init(width: 320, height: 240), .init(width: 160, height: 120)]
                $0.pixelFormats = [.nv12]
            }
            defer { rig.tearDown() }
            let (camera, recorder, session, events) = (rig.camera, rig.recorder, rig.session, rig.events)
            let capturing = camera.activeFormat
            let other = try #require(camera.formats.first { $0 != capturing })
            try await rig.start(waitingFor: 3)
            try await rig.unplug()
            try camera.simulateReconnect(offering: [other])
            #expect(await events.wait(for: .resumeFailed(camera.uniqueID, .unsupportedFormat)))
            #expect(session.state == .interrupted)
            #expect(!events.events.items.contains(.interruptionEnded))

            try camera.simulateDisconnect()
            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded))
            let countAtReturn = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: countAtReturn + 3, timeout: .seconds(30)))
            #expect(recorder.samples.items.allSatisfy { $0.width == capturing.width && $0.height == capturing.height })
        }

        /// Another camera appearing never takes the lost one's place.
        @Test func aDifferentCameraDoesNotResumeTheSession() async throws {
            let rig = try Rig("lost")
            defer { rig.tearDown() }
            let (camera, session, events) = (rig.camera, rig.session, rig.events)
            try await rig.start(waitingFor: 1)
            try await rig.unplug()
            let newcomer = try makeTestCamera("newcomer")
            defer { CaptureDevice.removeVirtualDevice(newcomer) }
            #expect(CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .video, position: .unspecified)
                .devices.contains { $0.uniqueID == newcomer.uniqueID })
            let resumed = await events.events.wait(timeout: .milliseconds(500)) { $0.contains(.interruptionEnded) }
            #expect(!resumed)
            #expect(session.state == .interrupted)
            #expect((session.inputs.first as? CaptureDeviceInput)?.device.uniqueID == camera.uniqueID)
        }

        /// The hot-plug path a real /dev takes, in a watched made-up one: the camera's node file
        /// is removed mid-recording (the scripted node then fails as an unplugged camera's does)
        /// and made again. The directory's watcher reports the camera gone and back, and the
        /// session and its recording resume by themselves.
        @Test func aCameraWhoseNodeLeavesAWatchedDirectoryAndReturnsResumesTheRecording() async throws {
            let camera = try ReturnableScriptedCamera(followsNodeFile: true) { _ in Self.pacedScript(frames: 600) }
            let device = DeviceRegistry.shared.device(for: try camera.backend())
            let path = camera.path
            let hub = DeviceConnectionHub(registry: .shared, watch: { try? V4L2HotplugMonitor(directory: camera.root.path, changed: $0) }, invalidate: {}) {
                FileManager.default.fileExists(atPath: path) ? [device.uniqueID: device] : [:]
            }
            let connections = Recorder<String>()
            let listening = Task {
                for await event in hub.subscribe() {
                    switch event {
                    case .connected(let which): connections.append("connected \(which.uniqueID)")
                    case .disconnected(let which): connections.append("disconnected \(which.uniqueID)")
                    }
                }
            }
            defer { listening.cancel() }
            _ = try await recordThroughALoss(of: camera, device: device, label: "watched", unplug: {
                try camera.unplug()
                #expect(await connections.wait(timeout: .seconds(30)) { $0.contains("disconnected \(device.uniqueID)") }, "\(connections.items)")
            }, plugBack: {
                try camera.plugBack()
                #expect(await connections.wait(timeout: .seconds(30)) { $0.contains("connected \(device.uniqueID)") }, "\(connections.items)")
            })
            #expect(connections.items == ["disconnected \(device.uniqueID)", "connected \(device.uniqueID)"])
        }

        /// The same through the V4L2 backend, over a scripted camera in a made-up /dev: it
        /// answers ENODEV mid-recording and cannot be opened, then answers again; the session
        /// resumes by itself and the movie holds the frames from before and after the gap, each
        /// side on its own frame grid.
        @Test func aV4L2RecordingResumesAfterReplug() async throws {
            let camera = try ReturnableScriptedCamera { returned in
                var script = Self.pacedScript(frames: returned ? 300 : 30)
                script.endErrno = returned ? nil : ENODEV
                return script
            }
            let device = DeviceRegistry.shared.device(for: try camera.backend())
            let (recorded, before, after) = try await recordThroughALoss(of: camera, device: device, label: "replug", unplug: {
                camera.opener.openErrno = ENODEV      // from now on the node answers nothing
            }, plugBack: {
                camera.opener.openErrno = nil         // back
            })
            // A returned camera starts its own frame clock: the gap ends where the first frame
            // after it starts.
            let gap = try #require(recorded.videoGaps.first)
            #expect(abs((after.first ?? 0) - (gap.start + gap.duration).seconds) < 0.0011, "the gap ends at the first frame after it")
            for side in [before, after] {
                let slots = zip(side, side.dropFirst()).map { ($1 - $0) * 30 }
                #expect(slots.allSatisfy { abs($0 - $0.rounded()) < 0.04 && $0.rounded() >= 1 }, "frames off their grid: \(slots)")
                let holes = slots.map { Int($0.rounded()) - 1 }.reduce(0, +)
                #expect(holes <= recorded.droppedSampleCount, "\(holes) frames missing, \(recorded.droppedSampleCount) reported")
            }
        }

        /// A V4L2 camera that stops delivering without an error (firmware hung, a virtual
        /// camera's producer gone), with a stall timeout: the session is interrupted, the node
        /// let go, and the recording resumes in the same file once the camera delivers again.
        @Test func aStalledV4L2CameraIsLetGoAndTheRecordingResumes() async throws {
            let camera = try ReturnableScriptedCamera { returned in Self.pacedScript(frames: returned ? 300 : 30) }
            let device = DeviceRegistry.shared.device(for: try camera.backend())
            try device.lockForConfiguration()
            try device.setStallTimeout(.milliseconds(400))
            device.unlockForConfiguration()
            #expect(device.stallTimeout == .milliseconds(400))
            _ = try await recordThroughALoss(of: camera, device: device, label: "stall", unplug: {
                // The stream is not touched: its 30 frames run out and it stalls. Until the
                // test says so, the camera cannot be opened again.
                camera.opener.openErrno = EBUSY
            }, plugBack: {
                camera.opener.openErrno = nil
            })
        }

        /// The stall timeout is a camera's: positive, and only on devices with video.
        @Test func aStallTimeoutMustBePositiveAndOnACamera() throws {
            let camera = try makeTestCamera("stall-setting")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            #expect(throws: CaptureError.self) { try camera.setStallTimeout(.zero) }
            try camera.setStallTimeout(.seconds(2))
            try camera.setStallTimeout(nil)
            #expect(camera.stallTimeout == nil)
            let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("stall-setting")))
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            try microphone.lockForConfiguration()
            defer { microphone.unlockForConfiguration() }
            #expect(throws: CaptureError.self) { try microphone.setStallTimeout(.seconds(2)) }
        }

        /// `frames` YUYV frames of a camera paced at 30 fps, stamped with their deadlines as a
        /// camera stamps its capture times.
        private static func pacedScript(frames: Int) -> ScriptedV4L2Device.Script {
            var script = V4L2Fixtures.yuyvScript()
            script.paceNanoseconds = 33_333_333
            script.frames = (0..<frames).map {
                ScriptedV4L2Device.Frame(bytes: [UInt8](repeating: UInt8($0 % 200), count: V4L2Fixtures.width * 2 * V4L2Fixtures.height),
                                         sequence: UInt32($0), timestamp: 0)
            }
            return script
        }

        /// Records a scripted camera into one file (`.continueRecording`) through a loss
        /// (`unplug`, then the interruption) and a return (`plugBack`, then `.interruptionEnded`),
        /// and checks what every such recording promises: the frames after the return run on in
        /// number and time, every one accounted for, and the file holds one gap with at least
        /// ten frames on each side. Returns the movie and its frame times before and after the gap.
        private func recordThroughALoss(of camera: ReturnableScriptedCamera, device: CaptureDevice, label: String,
                                        unplug: () async throws -> Void, plugBack: () async throws -> Void) async throws
            -> (recorded: RecordedMovie, before: [Double], after: [Double]) {
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let output = CaptureVideoDataOutput()
            let frames = SampleRecorder(label: "tests.v4l2.\(label)")
            frames.attach(to: output)
            let session = try makeSession(camera: device, preset: .inputPriority, outputs: [movie, output])
            let events = EventRecorder(session)
            let url = MovieFiles.path("v4l2-\(label)", "mkv")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await frames.samples.wait(forCount: 10, timeout: .seconds(30)))
            try await unplug()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: device.uniqueID)), timeout: .seconds(30)))
            let lastBefore = try #require(frames.samples.items.last)
            camera.returned.set()
            try await plugBack()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)))
            let countAtReturn = frames.samples.count
            #expect(await frames.samples.wait(forCount: countAtReturn + 10, timeout: .seconds(30)))
            let recorded = await movie.finishRecording()
            try await session.stop()

            let accounting = frames.accounting
            #expect(accounting.isComplete, "\(accounting)")
            let firstAfter = try #require(frames.samples.items.first { $0.sequenceNumber > lastBefore.sequenceNumber })
            #expect(firstAfter.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp)
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            #expect(recorded.videoGaps.count == 1, "\(recorded.videoGaps)")
            let gap = try #require(recorded.videoGaps.first)
            let times = try MovieTimeline(url.path, frameDuration: frameDuration(fps: 30)).times
            #expect(times.count == recorded.videoFrameCount)
            let before = times.filter { $0 < gap.start.seconds }, after = times.filter { $0 >= gap.start.seconds }
            #expect(before.count >= 10 && after.count >= 10, "\(before.count) frames before the gap, \(after.count) after")
            return (recorded, before, after)
        }
    }
}
