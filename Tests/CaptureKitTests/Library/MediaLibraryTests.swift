import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// Saving, listing, querying and deleting photos and movies in a `MediaLibrary`, each test in a
/// library of its own; files checked with ffprobe and exiftool. Photos are made in-process; the
/// tests with movies (made by the ffmpeg command line) or an outside oracle run child processes.
@Suite("MediaLibrary", .timeLimit(.minutes(2)), .excludable)
struct MediaLibraryTests {
    @Test func jpegDataRoundTrip() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let data = try LibraryFixtures.jpeg()
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        let asset = try library.saveImage(data, fileExtension: "jpg", creationDate: created)

        #expect(UUID(uuidString: asset.id)?.uuidString == asset.id)
        #expect(asset.kind == .photo)
        #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(asset.duration == .zero)
        #expect(asset.creationDate == created)
        #expect(asset.fileURL.deletingLastPathComponent().path == library.photosDirectory.path)
        #expect(LibraryFixtures.isGeneratedName(asset.fileURL.lastPathComponent, id: asset.id))
        #expect(asset.fileURL.pathExtension == "jpg")
        #expect(try Data(contentsOf: asset.fileURL) == data, "the bytes are stored as given")
        #expect(!asset.tracks.isEmpty, "a saved asset is inspected in full")
        // The file's modification time is its creation date.
        let modified = try FileManager.default.attributesOfItem(atPath: asset.fileURL.path)[.modificationDate] as? Date
        #expect(abs((modified ?? .distantPast).timeIntervalSince(created)) < 0.001)

        let listed = try library.assets()
        #expect(listed.map(\.id) == [asset.id])
        let found = try #require(try library.asset(id: asset.id))
        #expect(found.fileURL.path == asset.fileURL.path)
        #expect(found.kind == .photo && found.naturalSize == asset.naturalSize && found.creationDate == created)
        #expect(found.tracks.isEmpty, "assets from the index are not inspected")
        #expect(try library.asset(id: UUID().uuidString) == nil)
        try LibraryFixtures.expectConsistent(library)

        try library.delete(asset)
        #expect(!FileManager.default.fileExists(atPath: asset.fileURL.path))
        #expect(try library.asset(id: asset.id) == nil)
        #expect(try library.assets().isEmpty)
        #expect(LibraryFixtures.names(library.photosDirectory).isEmpty)
        do throws(CaptureError) {
            try library.delete(asset)
            Issue.record("deleted twice")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test(.tags(.childProcess)) func pixelBufferIsSavedAsJPEGWithItsDate() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let created = Date(timeIntervalSince1970: 1_700_000_123)
        let asset = try library.saveImage(try LibraryFixtures.frame(), quality: 85, creationDate: created)
        #expect(asset.kind == .photo)
        #expect(asset.fileURL.pathExtension == "jpg")
        #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
        let probed = try FileFixtures.ffprobe(asset.fileURL, stream: "v:0", entries: "codec_name,width,height")
        #expect(probed["codec_name"] == "mjpeg" && probed["width"] == "320" && probed["height"] == "240")
        // exiftool reads the EXIF date the library wrote (local time, as EXIF has it).
        let written = String(decoding: try FileFixtures.run("exiftool", ["-s3", "-d", "%s", "-DateTimeOriginal", asset.fileURL.path]), as: UTF8.self)
        #expect(written.trimmingCharacters(in: .whitespacesAndNewlines) == "1700000123")
        #expect(try library.assets(kind: .photo).map(\.id) == [asset.id])
        #expect(throws: CaptureError.self) { try library.saveImage(try LibraryFixtures.frame(), quality: 0) }
        try LibraryFixtures.expectConsistent(library)
    }

    @Test func pngAndHEIFAreSaved() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let png = try library.saveImage(try LibraryFixtures.png(), fileExtension: "PNG")
        #expect(png.fileURL.pathExtension == "png" && png.naturalSize == MediaAsset.Size(width: 320, height: 240))
        if let heif = try LibraryFixtures.heif() {
            let asset = try library.saveImage(heif, fileExtension: "heic")
            #expect(asset.kind == .photo && asset.fileURL.pathExtension == "heic")
            #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
            #expect(try library.asset(id: asset.id)?.naturalSize == asset.naturalSize)
        }
        let ids = try library.assets().map(\.id)
        #expect(ids.contains(png.id))
        // A reopened library rebuilds the same assets from its index.
        let reopened = try MediaLibrary(root: library.photosDirectory.deletingLastPathComponent())
        let again = try reopened.assets()
        #expect(again.map(\.id) == ids)
        #expect(again.map(\.naturalSize) == (try library.assets()).map(\.naturalSize))
        try LibraryFixtures.expectConsistent(reopened)
    }

    @Test func dataMustBeTheImageItsExtensionNames() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let jpeg = try LibraryFixtures.jpeg()
        let cases: [(Data, String, CaptureError.Code)] = [
            (Data("hello, not an image".utf8), "jpg", .unsupportedFile),
            (Data(), "jpg", .unsupportedFile),
            (try LibraryFixtures.png(), "jpg", .invalidArgument),
            (jpeg, "png", .invalidArgument),
            (jpeg, "exe", .invalidArgument),
            (jpeg, "", .invalidArgument),
            (jpeg, "../../escape.jpg", .invalidArgument),
            (jpeg, "jpg/../../x", .invalidArgument),
            (Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array(repeating: 0x42, count: 200)), "jpg", .corruptFile),
        ]
        for (data, fileExtension, expected) in cases {
            do throws(CaptureError) {
                _ = try library.saveImage(data, fileExtension: fileExtension)
                Issue.record("\(data.count) bytes as '\(fileExtension)' were saved")
            } catch {
                #expect(error.code == expected, "\(data.count) bytes as '\(fileExtension)': \(error)")
            }
        }
        #expect(try library.assets().isEmpty)
        #expect(LibraryFixtures.names(library.photosDirectory).isEmpty, "a refused image leaves nothing behind")
        #expect(try library.saveImage(jpeg, fileExtension: ".JPEG").fileURL.pathExtension == "jpeg")
    }

    @Test(.tags(.childProcess)) func videoIsCopiedOrMovedIn() throws {
        let root = LibraryFixtures.root()
        let library = try MediaLibrary(root: root)
        let fixture = try FileFixtures.mp4()

        let copied = try library.saveVideo(at: fixture)   // copies unless told to move, as ALAssetsLibrary
        #expect(FileManager.default.fileExists(atPath: fixture.path), "a copy leaves the source")
        #expect(copied.kind == .video && copied.fileURL.pathExtension == "mp4")
        #expect(copied.fileURL.deletingLastPathComponent().path == library.videosDirectory.path)
        #expect(copied.duration.seconds > 1.9 && copied.duration.seconds < 2.1)
        #expect(copied.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(copied.tracks.map(\.mediaType) == [.video, .audio])
        #expect(try Data(contentsOf: copied.fileURL) == Data(contentsOf: fixture))
        let indexed = try #require(try library.asset(id: copied.id))
        #expect(indexed.duration == copied.duration, "the duration is indexed exactly (value/timescale)")
        #expect(indexed.naturalSize == copied.naturalSize && indexed.creationDate == copied.creationDate)

        // Moving on the same file system.
        let source = FileFixtures.directory.appendingPathComponent("move-\(UUID().uuidString.prefix(6)).mp4")
        try FileManager.default.copyItem(at: fixture, to: source)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: source.path)
        let moved = try library.saveVideo(at: source, move: true)
        #expect(!FileManager.default.fileExists(atPath: source.path), "a move removes the source")
        #expect(LibraryFixtures.mode(moved.fileURL) == 0o600)
        #expect(try Data(contentsOf: moved.fileURL) == Data(contentsOf: fixture))

        // Moving across file systems (tmpfs to the disk), where the shared memory folder is one.
        let shm = URL(fileURLWithPath: "/dev/shm/capturekit-move-\(UUID().uuidString.prefix(6)).mkv")
        if (try? FileManager.default.copyItem(at: try FileFixtures.mkv(), to: shm)) != nil {
            let across = try library.saveVideo(at: shm, move: true)
            #expect(!FileManager.default.fileExists(atPath: shm.path))
            #expect(across.fileURL.pathExtension == "mkv" && across.kind == .video)
            #expect(try Data(contentsOf: across.fileURL) == Data(contentsOf: try FileFixtures.mkv()))
        }

        // The library's own files cannot be moved into it again.
        #expect(throws: CaptureError.self) { try library.saveVideo(at: copied.fileURL, move: true) }
        let assets = try LibraryFixtures.expectConsistent(library)
        #expect(assets.allSatisfy { $0.kind == .video })
        #expect(try library.assets(kind: .photo).isEmpty)

        try library.delete(copied)
        #expect(!FileManager.default.fileExists(atPath: copied.fileURL.path))
        try LibraryFixtures.expectConsistent(library)
    }

    @Test(.tags(.childProcess)) func queriesByKindAndDateNewestFirst() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let jpeg = try LibraryFixtures.jpeg()
        let day = 86_400.0
        let base = Date(timeIntervalSince1970: 1_600_000_000)
        let old = try library.saveImage(jpeg, creationDate: base)
        let middle = try library.saveImage(jpeg, creationDate: base + day)
        let new = try library.saveImage(jpeg, creationDate: base + 2 * day)
        let video = try library.saveVideo(at: try FileFixtures.short(), move: false)

        let photos = try library.assets(kind: .photo)
        #expect(photos.map(\.id) == [new.id, middle.id, old.id])
        #expect(try library.assets(kind: .video).map(\.id) == [video.id])
        let all = try library.assets()
        #expect(all.count == 4)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.creationDate >= $1.creationDate }, "newest first")
        // `from` is inclusive, `to` exclusive.
        #expect(try library.assets(kind: .photo, from: base + day).map(\.id) == [new.id, middle.id])
        #expect(try library.assets(kind: .photo, to: base + day).map(\.id) == [old.id])
        #expect(try library.assets(from: base, to: base + 2 * day).map(\.id) == [middle.id, old.id])
        #expect(try library.assets(from: base + 3 * day, to: base + 4 * day).isEmpty)
        // Same dates: the later-saved first.
        let twin = try library.saveImage(jpeg, creationDate: base)
        #expect(try library.assets(kind: .photo, to: base + 1).map(\.id) == [twin.id, old.id])
    }

    @Test(.tags(.childProcess)) func asyncAndCompletionForms() async throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let jpeg = try LibraryFixtures.jpeg()
        let photo = try await library.saveImage(jpeg, fileExtension: "jpg", creationDate: nil)
        let frame = try await library.saveImage(try LibraryFixtures.frame(), quality: 70, creationDate: nil)
        let movie = try await library.saveVideo(at: try FileFixtures.short(), move: false)
        #expect(Set(try library.assets().map(\.id)) == [photo.id, frame.id, movie.id])

        // Typed errors come through the async form.
        do throws(CaptureError) {
            _ = try await library.saveImage(Data("nope".utf8), fileExtension: "jpg", creationDate: nil)
            Issue.record("saved text as a photo")
        } catch {
            #expect(error.code == .unsupportedFile)
        }

        // The completion handler runs on the queue it was given.
        let queue = DispatchQueue(label: "library-test-completions")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let results = Recorder<(Result<MediaAsset, CaptureError>, Bool)>()
        library.saveImage(jpeg, queue: queue) { results.append(($0, DispatchQueue.getSpecific(key: key) == 42)) }
        library.saveImage(try LibraryFixtures.frame(), queue: queue) { results.append(($0, DispatchQueue.getSpecific(key: key) == 42)) }
        library.saveVideo(at: URL(fileURLWithPath: "/nonexistent/clip.mov"), move: false, queue: queue) {
            results.append(($0, DispatchQueue.getSpecific(key: key) == 42))
        }
        #expect(await results.wait(timeout: .seconds(30)) { $0.count == 3 })
        let outcomes = results.items
        #expect(outcomes.allSatisfy { $0.1 }, "every completion ran on the given queue")
        #expect(outcomes.filter { (try? $0.0.get()) != nil }.count == 2)
        let failure = outcomes.compactMap { outcome -> CaptureError? in
            if case .failure(let error) = outcome.0 { return error }
            return nil
        }
        #expect(failure.map(\.code) == [.unsupportedFile])

        try await library.delete(photo)
        #expect(try library.asset(id: photo.id) == nil)
        try LibraryFixtures.expectConsistent(library)
    }

    @Test func manyConcurrentSavesInOneProcess() async throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let jpeg = try LibraryFixtures.jpeg()
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<24 {
                group.addTask { try await library.saveImage(jpeg, fileExtension: "jpg", creationDate: nil).id }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 24)
        let assets = try LibraryFixtures.expectConsistent(library)
        #expect(Set(assets.map(\.id)) == Set(ids))
    }

    @Test func standardLocationsFollowXDG() throws {
        let home = LibraryFixtures.root("home")
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("""
            # written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_PICTURES_DIR="$HOME/Bilder"
            XDG_VIDEOS_DIR="/\(home.path.dropFirst())/My \\"Films\\""
            """.utf8).write(to: config.appendingPathComponent("user-dirs.dirs"))

        let locations = try MediaLibraryLocations.standard(environment: ["HOME": home.path])
        #expect(locations.photos.path == home.path + "/Bilder/CaptureKit")
        #expect(locations.videos.path == home.path + "/My \"Films\"/CaptureKit")
        #expect(locations.index.path == home.path + "/.local/share/capturekit/library.sqlite")

        // XDG_DATA_HOME and XDG_CONFIG_HOME move the index and the user-dirs file; with no
        // user-dirs entry the folders are ~/Pictures and ~/Videos.
        let data = home.appendingPathComponent("data")
        let other = try MediaLibraryLocations.standard(environment: ["HOME": home.path, "XDG_DATA_HOME": data.path,
                                                                     "XDG_CONFIG_HOME": home.appendingPathComponent("none").path])
        #expect(other.photos.path == home.path + "/Pictures/CaptureKit")
        #expect(other.videos.path == home.path + "/Videos/CaptureKit")
        #expect(other.index.path == data.path + "/capturekit/library.sqlite")
        // A relative XDG_DATA_HOME is ignored, as the specification says.
        #expect(try MediaLibraryLocations.standard(environment: ["HOME": home.path, "XDG_DATA_HOME": "rel"]).index == locations.index)

        let library = try MediaLibrary(locations: locations)
        let asset = try library.saveImage(try LibraryFixtures.jpeg())
        #expect(asset.fileURL.deletingLastPathComponent().path == home.path + "/Bilder/CaptureKit")
        #expect(FileManager.default.fileExists(atPath: locations.index.path))
        #expect(LibraryFixtures.mode(home.appendingPathComponent(".local/share/capturekit")) == 0o700)
    }
}
