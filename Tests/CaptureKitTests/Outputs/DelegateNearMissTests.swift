import Foundation
import Testing

/// The delegate methods that finish an operation have no default, so a near miss — Apple's
/// signature before CaptureKit took it, a misspelled label — is a compile error instead of a
/// method nobody calls and a continuation that never resumes. Proved by type-checking small
/// clients against the built modules with the toolchain's `swiftc`: each exact delegate
/// compiles (so a failure is the near miss, not the set-up), each near miss does not.
@Suite(.serialized, .tags(.childProcess))
struct DelegateNearMissTests {
    private static let photoDelegate = """
        import CaptureKit
        final class PhotoWaiter: CapturePhotoCaptureDelegate {
            func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: Error?) {}
            func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: Error?) {}
        }
        """

    private static let recordingDelegate = """
        import CaptureKit
        final class MovieWaiter: CaptureFileOutputRecordingDelegate {
            func fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [CaptureConnection], error: Error?) {}
        }
        """

    /// Type-checks `source` as a client of CaptureKit; throws with the compiler's complaint.
    private func typecheck(_ source: String, in scratch: PhotoScratch) throws {
        let build = try #require(MovieFiles.captureExecutable?.deletingLastPathComponent(), "the package is built (swift build --build-tests)")
        let root = build.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // C modules CaptureKit imports internally: the package's system libraries and C targets.
        let sources = root.appendingPathComponent("Sources")
        var maps = try FileManager.default.contentsOfDirectory(atPath: sources.path).map { sources.appendingPathComponent("\($0)/module.modulemap") }
        maps += try FileManager.default.contentsOfDirectory(atPath: build.path).filter { $0.hasPrefix("C") && $0.hasSuffix(".build") }
            .map { build.appendingPathComponent("\($0)/module.modulemap") }
        let mapArguments = maps.filter { FileManager.default.fileExists(atPath: $0.path) }.flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] }
        let file = try scratch.write(Data(source.utf8), as: "Client\(UUID().uuidString.prefix(8)).swift")
        try PhotoTools.run("swiftc", ["-typecheck", "-swift-version", "6", "-I", build.appendingPathComponent("Modules").path] + mapArguments + [file],
                           in: scratch)
    }

    /// `source` does not compile, and the compiler names `protocolName` as the reason ("does not
    /// conform to protocol", or "different argument labels from those required by protocol").
    private func expectRefused(_ source: String, _ protocolName: String, in scratch: PhotoScratch) {
        do {
            try typecheck(source, in: scratch)
            Issue.record("the near miss compiled: \(source)")
        } catch {
            #expect("\(error)".contains("protocol '\(protocolName)'"), "\(error)")
        }
    }

    @Test func photoDelegateNearMissesDoNotCompile() throws {
        let scratch = try PhotoScratch()
        try typecheck(Self.photoDelegate, in: scratch)
        // CaptureKit's old spelling of the error, and a wrong label.
        expectRefused(Self.photoDelegate.replacingOccurrences(of: "didFinishProcessingPhoto photo: CapturePhoto, error: Error?",
                                                              with: "didFinishProcessingPhoto photo: CapturePhoto, error: CaptureError?"),
                      "CapturePhotoCaptureDelegate", in: scratch)
        expectRefused(Self.photoDelegate.replacingOccurrences(of: "didFinishCaptureFor resolvedSettings", with: "didFinishCapture resolvedSettings"),
                      "CapturePhotoCaptureDelegate", in: scratch)
    }

    @Test func recordingDelegateNearMissesDoNotCompile() throws {
        let scratch = try PhotoScratch()
        try typecheck(Self.recordingDelegate, in: scratch)
        expectRefused(Self.recordingDelegate.replacingOccurrences(of: "error: Error?", with: "error: CaptureError?"),
                      "CaptureFileOutputRecordingDelegate", in: scratch)
        expectRefused(Self.recordingDelegate.replacingOccurrences(of: "didFinishRecordingTo", with: "didFinishRecording"),
                      "CaptureFileOutputRecordingDelegate", in: scratch)
    }
}
