import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A recording delegate written as on iOS, with `CaptureFileOutput` (`AVCaptureFileOutput`)
    /// and `error: Error?` in its signatures: its methods are the protocol's own requirements,
    /// so they are called (a look-alike would fall back to a default and never be).
    @Suite struct PortedRecordingDelegateTests {
        final class PortedDelegate: CaptureFileOutputRecordingDelegate {
            let calls = Recorder<String>()
            func fileOutput(_ output: CaptureFileOutput, didStartRecordingTo fileURL: URL, from connections: [CaptureConnection]) {
                calls.append("didStart")
            }
            func fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [CaptureConnection],
                            error: Error?) {
                calls.append(error.map { "didFinish \(($0 as? CaptureError)?.code.rawValue ?? "non-CaptureError")" } ?? "didFinish")
            }
        }

        @Test func aDelegateWrittenWithCaptureFileOutputIsCalled() async throws {
            let movie = CaptureMovieFileOutput()
            let (session, camera, _) = try makeRecordingSession("ported delegate", audio: false, outputs: [movie])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try await session.start()
            let url = MovieFiles.path("ported-delegate", "mov")
            let delegate = PortedDelegate()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains("didStart") })
            let fileOutput: CaptureFileOutput = movie
            #expect(fileOutput.outputFileURL == url)
            movie.stopRecording()
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains { $0.hasPrefix("didFinish") } })
            #expect(delegate.calls.items == ["didStart", "didFinish"])
            try await session.stop()
            #expect(FileManager.default.fileExists(atPath: url.path))
        }
    }
}
