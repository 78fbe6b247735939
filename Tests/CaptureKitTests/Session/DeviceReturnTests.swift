import Foundation
import Testing
@testable import CaptureKit

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
            defer {
                try? camera.simulateReconnect()
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
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

        /// The same through the V4L2 backend, over a scripted camera in a made-up /dev: it
        /// answers ENODEV mid-recording and cannot be opened, then answers again; the session
        /// resumes by itself and the movie holds the frames from before and after the gap.
        @Test func aV4L2RecordingResumesAfterReplug() async throws {
            let camera = try ReturnableScriptedCamera { returned in
                var script = V4L2Fixtures.yuyvScript()
                script.paceNanoseconds = 33_333_333   // stamped with their deadlines, as a camera does
                script.frames = (0..<(returned ? 300 : 30)).map {
                    ScriptedV4L2Device.Frame(bytes: [UInt8](repeating: UInt8($0 % 200), count: V4L2Fixtures.width * 2 * V4L2Fixtures.height),
                                             sequence: UInt32($0), timestamp: 0)
                }
                script.endErrno = returned ? nil : ENODEV
                return script
            }
            let device = DeviceRegistry.shared.device(for: try camera.backend())
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let output = CaptureVideoDataOutput()
            let frames = SampleRecorder(label: "tests.v4l2.replug")
            frames.attach(to: output)
            let session = try makeSession(camera: device, preset: .inputPriority, outputs: [movie, output])
            let events = EventRecorder(session)
            let url = MovieFiles.path("v4l2-replug", "mkv")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await frames.samples.wait(forCount: 10, timeout: .seconds(30)))
            camera.opener.openErrno = ENODEV      // from now on the node answers nothing
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: device.uniqueID)), timeout: .seconds(30)))
            let lastBefore = try #require(frames.samples.items.last)
            camera.returned.set()
            camera.opener.openErrno = nil         // back
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
            // A returned camera starts its own frame clock: each side of the gap is on a grid of
            // its own, and the gap ends where the first frame after it starts.
            let gap = try #require(recorded.videoGaps.first)
            let times = try MovieTimeline(url.path, frameDuration: frameDuration(fps: 30)).times
            #expect(times.count == recorded.videoFrameCount)
            let before = times.filter { $0 < gap.start.seconds }, after = times.filter { $0 >= gap.start.seconds }
            #expect(before.count >= 10 && after.count >= 10, "\(before.count) frames before the gap, \(after.count) after")
            #expect(abs((after.first ?? 0) - (gap.start + gap.duration).seconds) < 0.0011, "the gap ends at the first frame after it")
            for side in [before, after] {
                let slots = zip(side, side.dropFirst()).map { ($1 - $0) * 30 }
                #expect(slots.allSatisfy { abs($0 - $0.rounded()) < 0.04 && $0.rounded() >= 1 }, "frames off their grid: \(slots)")
                let holes = slots.map { Int($0.rounded()) - 1 }.reduce(0, +)
                #expect(holes <= recorded.droppedSampleCount, "\(holes) frames missing, \(recorded.droppedSampleCount) reported")
            }
        }
    }
}
