import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// `saveImage(_:)` without a file extension names the file for what its bytes are (JPEG's SOI,
/// PNG's signature, HEIF's `ftyp` brands), in the plain, async and completion forms; an
/// extension given must still match, and bytes that are no image leave nothing behind. The
/// saved files are read back by `MediaAsset(url:)`, ffprobe and exiftool.
@Suite("MediaLibraryImageType", .timeLimit(.minutes(2)), .excludable)
struct MediaLibraryImageTypeTests {
    @Test(.tags(.childProcess), .enabled(if: HEIFEncoder.isAvailable, "libheif has no HEVC encoder here"))
    func heifBytesWithoutAnExtensionLandAsHEIC() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let heif = try #require(try LibraryFixtures.heif())
        let saved = try library.saveImage(heif)
        #expect(saved.fileURL.pathExtension == "heic")
        #expect(LibraryFixtures.isGeneratedName(saved.fileURL.lastPathComponent, id: saved.id))
        #expect(saved.kind == .photo && saved.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(try Data(contentsOf: saved.fileURL) == heif, "the bytes are stored as given")
        // The file probes as a photo, here and for exiftool.
        let probed = try MediaAsset(url: saved.fileURL)
        #expect(probed.kind == .photo && probed.tracks.map(\.codec) == ["hevc"])
        #expect(probed.naturalSize == MediaAsset.Size(width: 320, height: 240))
        let scratch = try PhotoScratch()
        let exif = try PhotoTools.exif(saved.fileURL.path, in: scratch)
        #expect(exif["FileType"] as? String == "HEIC" && exif["ImageSize"] as? String == "320 240", "\(exif)")
        #expect(try library.asset(id: saved.id)?.fileURL.pathExtension == "heic")
        try LibraryFixtures.expectConsistent(library)
    }

    @Test(.tags(.childProcess)) func pngAndJPEGBytesWithoutAnExtensionLandAsPNGAndJPG() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let png = try library.saveImage(try LibraryFixtures.png())
        #expect(png.fileURL.pathExtension == "png")
        #expect(png.kind == .photo && png.naturalSize == MediaAsset.Size(width: 320, height: 240))
        let probedPNG = try FileFixtures.ffprobe(png.fileURL, stream: "v:0", entries: "codec_name,width,height")
        #expect(probedPNG["codec_name"] == "png" && probedPNG["width"] == "320" && probedPNG["height"] == "240")
        #expect(try MediaAsset(url: png.fileURL).kind == .photo)
        let jpeg = try library.saveImage(try LibraryFixtures.jpeg())
        #expect(jpeg.fileURL.pathExtension == "jpg")
        #expect(try FileFixtures.ffprobe(jpeg.fileURL, stream: "v:0", entries: "codec_name")["codec_name"] == "mjpeg")
        #expect(Set(try library.assets().map(\.id)) == [png.id, jpeg.id])
        try LibraryFixtures.expectConsistent(library)
    }

    @Test func bytesThatAreNoImageAreUnsupportedAndWriteNothing() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        // A movie's ftyp box (no HEIF brand), text, noise, nothing, and a PNG signature cut short.
        let movieStart = Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8) + Array(repeating: 0, count: 64))
        let noise = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        let cases: [(String, Data)] = [
            ("a movie's ftyp box", movieStart), ("text", Data("garbage, not an image".utf8)), ("noise", noise),
            ("nothing", Data()), ("half a PNG signature", Data([0x89, 0x50, 0x4E, 0x47])),
        ]
        for (name, data) in cases {
            do throws(CaptureError) {
                let saved = try library.saveImage(data)
                Issue.record("\(name) was saved as \(saved.fileURL.lastPathComponent)")
            } catch {
                #expect(error.code == .unsupportedFile, "\(name): \(error)")
            }
        }
        #expect(try library.assets().isEmpty)
        #expect(LibraryFixtures.names(library.photosDirectory).isEmpty, "a refused image leaves no file, not even a temporary one")
    }

    @Test func anExtensionGivenIsKeptAndMustMatchTheBytes() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let png = try LibraryFixtures.png()
        for (data, fileExtension) in [(png, "jpg"), (try LibraryFixtures.jpeg(), "png"), (png, "heic"), (png, "")] {
            do throws(CaptureError) {
                _ = try library.saveImage(data, fileExtension: fileExtension)
                Issue.record("\(data.count) bytes as '\(fileExtension)' were saved")
            } catch {
                #expect(error.code == .invalidArgument, "'\(fileExtension)': \(error)")
            }
        }
        #expect(LibraryFixtures.names(library.photosDirectory).isEmpty)
        #expect(try library.saveImage(try LibraryFixtures.jpeg(), fileExtension: "JPEG").fileURL.pathExtension == "jpeg")
        if let heif = try LibraryFixtures.heif() {
            #expect(try library.saveImage(heif, fileExtension: "heif").fileURL.pathExtension == "heif")
        }
    }

    @Test func theAsyncAndCompletionFormsSniffToo() async throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let png = try await library.saveImage(try LibraryFixtures.png())
        #expect(png.fileURL.pathExtension == "png")
        let queue = DispatchQueue(label: "image-type-completion")
        let result: Result<MediaAsset, CaptureError> = try await withCheckedThrowingContinuation { continuation in
            do {
                library.saveImage(try LibraryFixtures.jpeg(), queue: queue) { continuation.resume(returning: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(try result.get().fileURL.pathExtension == "jpg")
        let refused: Result<MediaAsset, CaptureError> = await withCheckedContinuation { continuation in
            library.saveImage(Data("garbage".utf8), queue: queue) { continuation.resume(returning: $0) }
        }
        #expect(throws: CaptureError.self) { try refused.get() }
        if case .failure(let error) = refused { #expect(error.code == .unsupportedFile) }
        #expect(try library.assets().count == 2)
        try LibraryFixtures.expectConsistent(library)
    }
}
