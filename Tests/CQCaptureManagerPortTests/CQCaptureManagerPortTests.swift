import CaptureKit
import Foundation
import PortTestSupport
import Testing

// The article's two flows, driven as its app drives them: from the main actor, the session
// started asynchronously first, every delegate call expected on the main queue and in the
// article's order. The files are checked by ffprobe and exiftool, not by CaptureKit.

// On a machine with cameras, the article's lookup finds only what they honestly are (a laptop's
// camera is at the front): the flows need the virtual back camera of a machine without any.
@Suite("The article's CQCaptureManager, ported", .serialized, .timeLimit(.minutes(3)),
       .enabled(if: CaptureDevice.default(for: .video)?.isVirtual == true, "the machine has cameras"))
@MainActor
struct CQCaptureManagerPortTests {
    /// A library in a folder of its own, removed afterwards.
    private static func withLibrary(_ body: (MediaLibrary) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cq-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await body(try MediaLibrary(root: root))
    }

    @Test func camerasForBothPositions() async throws {
        try await Self.withLibrary { library in
            let manager = CQCaptureManager(library: library)
            let back = try #require(manager.getCameraWithPosition(.back))
            let front = try #require(manager.getCameraWithPosition(.front))
            #expect(back.position == .back)
            #expect(front.position == .front)
            #expect(back != front)
        }
    }

    @Test func photo() async throws {
        try await Self.withLibrary { library in
            let manager = CQCaptureManager(library: library)
            let calls = DelegateCalls()
            manager.delegate = calls
            manager.startSessionAsync()
            manager.captureStillImage()
            // The article stops asynchronously; the next test's session needs the camera free.
            defer { try? manager.captureSession.stopRunning() }
            #expect(manager.captureSession.isRunning)

            let received = await calls.next(2)
            #expect(received.map(\.name) == ["mediaCaptureImageFileSuccess()", "assetLibraryWriteImageSuccessWithImage(_:)"],
                    "\(received)")
            #expect(received.allSatisfy { $0.onMainQueue }, "\(received)")
            let image = try #require(received.last?.image)
            // Held upright (.portrait), the landscape camera's photo stands up.
            #expect(image.height > image.width)

            let photos = try library.assets(kind: .photo)
            try #require(photos.count == 1)
            let exif = try OutsideTool.exif(photos[0].fileURL)
            #expect(exif["MIMEType"] as? String == "image/jpeg")
            #expect(exif["ImageWidth"] as? Int == image.width)
            #expect(exif["ImageHeight"] as? Int == image.height)
            let stream = try #require(try OutsideTool.probe(photos[0].fileURL).streams.first)
            #expect(stream["codec_name"] as? String == "mjpeg")
            #expect(stream["width"] as? Int == image.width)
        }
    }

    @Test func movie() async throws {
        try await Self.withLibrary { library in
            let manager = CQCaptureManager(library: library)
            let calls = DelegateCalls()
            manager.delegate = calls
            manager.startSessionAsync()
            manager.startRecordingMovieFile()
            defer { try? manager.captureSession.stopRunning() }
            #expect(manager.captureSession.isRunning)
            #expect(manager.isRecordingMovieFile())

            // The article's UI shows the recorded duration and the user stops; here the test
            // stops after a second of movie (bounded: 60 s).
            for _ in 0..<1200 where manager.movieFileRecordedDuration().seconds < 1 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(manager.movieFileRecordedDuration().seconds >= 1)
            manager.stopRecordingMovieFile()

            let received = await calls.next(2)
            #expect(received.map(\.name) == ["mediaCaptureMovieFileSuccess()", "assetLibraryWriteMovieFileSuccessWithCoverImage(_:)"],
                    "\(received)")
            #expect(received.allSatisfy { $0.onMainQueue }, "\(received)")
            #expect(!manager.isRecordingMovieFile())

            let movies = try library.assets(kind: .video)
            try #require(movies.count == 1)
            let (streams, format) = try OutsideTool.probe(movies[0].fileURL)
            let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
            #expect(video["codec_name"] as? String == "h264")
            #expect(Double(format["duration"] as? String ?? "") ?? 0 >= 1)
            let (width, height) = try #require((video["width"] as? Int).flatMap { w in (video["height"] as? Int).map { (w, $0) } })

            // The cover: 100 px wide, its height by the movie's aspect ratio as it is shown
            // (held upright, the movie plays standing up, whether turned in its pixels or by its
            // display matrix).
            let cover = try #require(received.last?.image)
            let shown = movies[0].presentationSize
            #expect(cover.width == 100)
            let coverHeight = Double(100 * shown.height) / Double(shown.width)
            #expect(abs(Double(cover.height) - coverHeight) <= 1)
            #expect(shown.height > shown.width)
            #expect(Set([width, height]) == Set([shown.width, shown.height]))
        }
    }
}
