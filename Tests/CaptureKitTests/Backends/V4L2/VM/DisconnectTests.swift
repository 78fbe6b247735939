import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// vivid's "Disconnect" control makes every call on the open node fail with ENODEV, as an
    /// unplugged USB camera does (the node itself stays, and vivid reconnects once the last
    /// handle is closed, so there is no hot-plug event to see). The harness runs this suite
    /// last, in a process of its own, on the second vivid instance.
    @Suite struct DisconnectTests {
        @Test func unplugMidRecordingInterruptsAndFinalizesTheMovie() async throws {
            let node = VMEnvironment.vivid(1)
            let device = try VMEnvironment.device(at: node)
            let deviceID = device.uniqueID
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 25)
            let movie = CaptureMovieFileOutput()
            // The witness: it sees every frame the movie is offered, with its sequence number.
            let frames = CaptureVideoDataOutput()
            frames.alwaysDiscardsLateVideoFrames = false
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 2, timeout: .seconds(30)), "frames before the recording")
            let lastBeforeStart = recorder.samples.items.last?.sequenceNumber
            let url = MovieFiles.path("unplugged", "mp4")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            // A second of frames into the recording (the first few the witness gets after this
            // may have reached the movie before the recording existed: at most its queue's 8
            // and the one in its delegate).
            let recordingFrom = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: recordingFrom + 25, timeout: .seconds(30)),
                    "frames before the unplug: \(recorder.samples.count - recordingFrom)")

            try V4L2Ctl.set(node, ["disconnect": "1"])
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: deviceID)), timeout: .seconds(20)),
                    "events: \(events.events.items)")
            let finish = await delegate.finished(timeout: .seconds(30))
            let finished = try #require(finish, "the recording did not finish after the unplug; calls: \(delegate.calls.items)")
            if case .didFinish(_, let usable) = finished { #expect(usable, "the file must be usable: \(finished)") }
            #expect(!device.isConnected)
            try await session.stop()

            // The movie holds what was recorded up to the unplug, and plays: every frame from its
            // first to the last one the camera delivered is in it or reported dropped.
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.codec == "h264")
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
            let recording = WitnessedRecording(url: url, calls: delegate.calls.items, movie: movie.lastRecordedMovie, witness: recorder.log.items,
                                               lastBeforeStart: lastBeforeStart, packetTimes: try WitnessedRecording.packetTimes(url.path),
                                               startTime: delegate.startTimes.items.first)
            let account = recording.account
            #expect(account.isComplete, "\(account)")
            let lastDelivered = try #require(recorder.samples.items.last?.sequenceNumber)
            let lastInFile = try #require(account.matches.map(\.sequenceNumber).max())
            let tail = recorder.samples.items.suffix(4).map { "\($0.sequenceNumber)@\($0.sample.presentationTimeStamp.seconds)s (arrived \(Double($0.arrival) / 1e9)s)" }
            #expect((account.reported ?? 0) - account.missing >= Int(lastDelivered - lastInFile),
                    "the frames after the file's last one (\(lastInFile)) up to the unplug (\(lastDelivered)) are reported: \(account); last frames \(tail); events \(events.events.items); calls \(delegate.calls.items)")
            #expect(account.produced >= 25 - 9, "the file covers the second before the unplug: \(account)")
        }
    }
}
