import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// `isVideoCompatible(at:)` and what `saveVideo` refuses: each reason, against files made by
/// the ffmpeg command line.
@Suite("MediaLibraryCompatibility", .timeLimit(.minutes(2)), .tags(.childProcess), .excludable)
struct MediaLibraryCompatibilityTests {
    private func reason(_ compatibility: VideoCompatibility) -> String? {
        if case .incompatible(let reason) = compatibility { return reason }
        return nil
    }

    @Test func moviesTheLibraryTakes() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        for movie in [try FileFixtures.mp4(), try FileFixtures.mkv(), try FileFixtures.short(), try FileFixtures.rotated()] {
            #expect(library.isVideoCompatible(at: movie) == .compatible, "\(movie.lastPathComponent)")
            #expect(library.isVideoCompatible(at: movie).isCompatible)
        }
        // An MJPEG AVI too.
        let avi = try FileFixtures.file("mjpeg.avi") {
            try FileFixtures.ffmpeg(FileFixtures.picture(size: "160x120", seconds: 0.5) + ["-c:v", "mjpeg"], to: $0)
        }
        #expect(library.isVideoCompatible(at: avi) == .compatible)
        let saved = try library.saveVideo(at: avi, move: false)
        #expect(saved.fileURL.pathExtension == "avi" && saved.kind == .video)
        // The rotation tag is kept in the index.
        let rotated = try library.saveVideo(at: try FileFixtures.rotated(), move: false)
        #expect(try library.asset(id: rotated.id)?.preferredTransform == rotated.preferredTransform)
        #expect(rotated.preferredTransform.rotation != 0)
    }

    @Test func reasonsForFilesItRefuses() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let directory = FileFixtures.directory
        let text = try FileFixtures.file("notes.txt") { try Data("just words\n".utf8).write(to: URL(fileURLWithPath: $0)) }
        let empty = try FileFixtures.file("empty.mp4") { try Data().write(to: URL(fileURLWithPath: $0)) }
        let image = try FileFixtures.file("still.jpg") { try LibraryFixtures.jpeg().write(to: URL(fileURLWithPath: $0)) }
        let png = try FileFixtures.file("still.png") { try LibraryFixtures.png().write(to: URL(fileURLWithPath: $0)) }
        let gif = try FileFixtures.file("anim.gif") {
            try FileFixtures.ffmpeg(FileFixtures.picture(size: "64x48", fps: 10, seconds: 0.5), to: $0)
        }
        let theora = try FileFixtures.file("theora.ogv") {
            try FileFixtures.ffmpeg(FileFixtures.picture(size: "64x48", fps: 10, seconds: 0.5) + ["-c:v", "libtheora"], to: $0)
        }

        let cases: [(URL, String)] = [
            (directory.appendingPathComponent("missing.mov"), "no file"),
            (directory, "folder"),
            (text, "not a media file"),
            (empty, "empty"),
            (try FileFixtures.noise(), "not a media file"),
            (try FileFixtures.audioOnly(), "audio only"),
            (try FileFixtures.subtitles(), "no video stream"),
            (image, "still image"),
            (png, "still image"),
            (gif, "codec gif"),
            (theora, "codec theora"),
        ]
        for (url, expected) in cases {
            let compatibility = library.isVideoCompatible(at: url)
            #expect(!compatibility.isCompatible, "\(url.lastPathComponent)")
            let text = reason(compatibility) ?? ""
            #expect(text.contains(expected), "\(url.lastPathComponent): '\(text)' does not say '\(expected)'")
            do throws(CaptureError) {
                _ = try library.saveVideo(at: url, move: true)
                Issue.record("saved \(url.lastPathComponent)")
            } catch {
                #expect(error.code == .unsupportedFile)
                #expect(error.message.contains(text))
            }
        }
        // Refused files stay where they were, and nothing is left in the library.
        #expect(FileManager.default.fileExists(atPath: text.path) && FileManager.default.fileExists(atPath: image.path))
        #expect(LibraryFixtures.names(library.videosDirectory).isEmpty && LibraryFixtures.names(library.photosDirectory).isEmpty)
        #expect(try library.assets().isEmpty)

        // Unreadable (when not running as root, who reads everything).
        if geteuid() != 0 {
            let locked = directory.appendingPathComponent("locked-\(UUID().uuidString.prefix(6)).mp4")
            try FileManager.default.copyItem(at: try FileFixtures.mp4(), to: locked)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            #expect(reason(library.isVideoCompatible(at: locked))?.contains("cannot read") == true)
        }
    }
}
