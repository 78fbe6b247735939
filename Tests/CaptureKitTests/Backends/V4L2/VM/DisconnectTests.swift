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
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            let url = MovieFiles.path("unplugged", "mp4")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            // A second of frames into the recording (frames delivered before it started are not in it).
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

            // The movie holds what was recorded before the unplug and plays.
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.codec == "h264")
            #expect((video.frames ?? 0) >= 20, "frames: \(String(describing: video.frames))")
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
        }
    }
}
