import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// An RTSP camera whose clock is far from this machine's (GStreamer's RTSP server under
    /// libfaketime, its RTCP sender reports in its own NTP time): the camera's clock offset is
    /// read from them, and its frames are still dated on this machine's monotonic clock, by
    /// their arrival — not by the camera's idea of the time.
    @Suite(.serialized) struct CameraClockTests {
        @Test(arguments: [100, -3_600])
        func aCameraWhoseClockIsOffIsStillDatedOnThisMachinesClock(secondsAhead: Int) async throws {
            let server = try RTSPCameraServer.start(clockAhead: secondsAhead)
            defer { server.stop() }
            let camera = try CaptureDevice.networkCamera(url: server.url(), options: NetworkCameraTests.quick)
            #expect(camera.cameraClockOffset == nil, "no sender report before it streams")
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.network.clock")
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            // GStreamer sends its first sender report within a few seconds.
            #expect(await pollUntil(timeout: .seconds(20)) { camera.cameraClockOffset != nil })
            let offset = try #require(camera.cameraClockOffset)
            let error = offset - .seconds(secondsAhead)
            #expect(error < .milliseconds(500) && error > .milliseconds(-500), "the camera's clock is \(offset) ahead, not \(secondsAhead) s")
            let known = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: known + 20, timeout: .seconds(30)))
            try await session.stop()

            let dated = recorder.samples.items.dropFirst(known).prefix(20)
            let times = dated.map { $0.sample.presentationTimeStamp.nanoseconds ?? 0 }
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
            // Taking the camera's clock for this machine's would date them `secondsAhead` off.
            for frame in dated {
                let age = frame.arrival - (frame.sample.presentationTimeStamp.nanoseconds ?? 0)
                #expect(age >= 0 && age < 1_000_000_000, "a frame dated \(Double(age) / 1e9) s before its delivery")
            }
            // The camera's clock keeps its frames' spacing: 20 frames at 15 fps span 19/15 s,
            // less where a frame that came quicker moved the anchor earlier.
            let span = Double((times.last ?? 0) - (times.first ?? 0)) / 1e9
            #expect(span > 19.0 / 15 - 0.2 && span <= 19.0 / 15 + 0.001, "20 frames over \(span) s")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }
    }
}
