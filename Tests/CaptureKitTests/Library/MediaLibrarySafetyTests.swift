import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

/// What keeps a library whole: generated file names, private permissions, and reconciliation
/// after a crash at each step of a write (simulated through the library's crash hook). The tests
/// with a movie (made by the ffmpeg command line) run a child process.
@Suite("MediaLibrarySafety", .timeLimit(.minutes(2)), .excludable)
struct MediaLibrarySafetyTests {
    @Test(.tags(.childProcess)) func fileNamesAreGeneratedNeverTakenFromInput() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        // A source whose name tries to climb out and carries shell metacharacters.
        let nested = FileFixtures.directory.appendingPathComponent("traversal-\(UUID().uuidString.prefix(6))/a/b")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let hostile = nested.appendingPathComponent("..%2F..;$(touch pwned) `x`.mp4")
        try FileManager.default.copyItem(at: try FileFixtures.short(), to: hostile)
        let dotted = URL(fileURLWithPath: nested.path + "/../b/../../a/b/" + hostile.lastPathComponent)

        let video = try library.saveVideo(at: dotted, move: false)
        let moved = try library.saveVideo(at: hostile, move: true)
        let photo = try library.saveImage(try LibraryFixtures.jpeg(), fileExtension: "jpeg")
        for asset in [video, moved, photo] {
            let name = asset.fileURL.lastPathComponent
            #expect(LibraryFixtures.isGeneratedName(name, id: asset.id), "\(name)")
            #expect(!name.contains("pwned") && !name.contains(".."))
            let folder = asset.kind == .photo ? library.photosDirectory : library.videosDirectory
            #expect(asset.fileURL.deletingLastPathComponent().standardizedFileURL.path == folder.path)
        }
        #expect(video.fileURL.pathExtension == "mp4")
        // Extensions are never taken from input either, beyond the known ones.
        for fileExtension in ["../jpg", "jpg/..", "/etc/passwd", "jpg\0", "JPG.sh"] {
            #expect(throws: CaptureError.self, "\(fileExtension)") { try library.saveImage(try LibraryFixtures.jpeg(), fileExtension: fileExtension) }
        }
        let assets = try LibraryFixtures.expectConsistent(library)
        #expect(assets.count == 3)
        #expect(!FileManager.default.fileExists(atPath: FileFixtures.directory.appendingPathComponent("pwned").path))
    }

    @Test(.tags(.childProcess)) func filesArePrivate() throws {
        let root = LibraryFixtures.root()
        let previous = umask(0o022)
        defer { umask(previous) }
        let library = try MediaLibrary(root: root)
        let photo = try library.saveImage(try LibraryFixtures.jpeg())
        let video = try library.saveVideo(at: try FileFixtures.short(), move: false)
        for folder in [root, library.photosDirectory, library.videosDirectory] {
            #expect(LibraryFixtures.mode(folder) == 0o700, "\(folder.path)")
        }
        var files = [photo.fileURL, video.fileURL, library.indexURL, root.appendingPathComponent("library.lock")]
        // The WAL files exist while the library is open.
        for suffix in ["-wal", "-shm"] {
            let url = URL(fileURLWithPath: library.indexURL.path + suffix)
            if FileManager.default.fileExists(atPath: url.path) { files.append(url) }
        }
        #expect(files.count >= 5, "the index is in WAL mode")
        for file in files {
            #expect(LibraryFixtures.mode(file) == 0o600, "\(file.lastPathComponent): \(String(LibraryFixtures.mode(file), radix: 8))")
        }
        // An existing root keeps its mode; the folders the library makes inside are private.
        let existing = LibraryFixtures.root("existing")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let other = try MediaLibrary(root: existing)
        #expect(LibraryFixtures.mode(existing) == 0o755)
        #expect(LibraryFixtures.mode(other.photosDirectory) == 0o700)
    }

    @Test(.tags(.childProcess)) func crashAfterTheTemporaryFileLeavesNothingAfterReopening() throws {
        let root = LibraryFixtures.root()
        let kept: MediaAsset
        do {
            let library = try MediaLibrary(root: root, crashPoint: LibraryFixtures.crash(at: .temporaryFileWritten))
            #expect(throws: CaptureError.self) { try library.saveImage(try LibraryFixtures.jpeg()) }
            #expect(throws: CaptureError.self) { try library.saveVideo(at: try FileFixtures.short(), move: false) }
            // The "crashed" writes left their temporary files.
            let leftovers = LibraryFixtures.names(library.photosDirectory) + LibraryFixtures.names(library.videosDirectory)
            #expect(leftovers.count == 2 && leftovers.allSatisfy { $0.hasPrefix(MediaLibrary.temporaryPrefix) }, "\(leftovers)")
            #expect(try library.assets().isEmpty)
        }
        do {
            let library = try MediaLibrary(root: root)
            kept = try library.saveImage(try LibraryFixtures.jpeg())
            let assets = try LibraryFixtures.expectConsistent(library)
            #expect(assets.map(\.id) == [kept.id])
        }
    }

    @Test(.tags(.childProcess)) func crashBetweenRenameAndIndexLeavesNoOrphanAfterReopening() throws {
        let root = LibraryFixtures.root()
        var names: [String] = []
        do {
            let library = try MediaLibrary(root: root, crashPoint: LibraryFixtures.crash(at: .fileInPlace))
            #expect(throws: CaptureError.self) { try library.saveImage(try LibraryFixtures.jpeg(), creationDate: Date(timeIntervalSince1970: 1_650_000_000)) }
            #expect(throws: CaptureError.self) { try library.saveVideo(at: try FileFixtures.short(), move: false) }
            // Complete files in place, no rows: what a crash at that moment leaves.
            names = LibraryFixtures.names(library.photosDirectory) + LibraryFixtures.names(library.videosDirectory)
            #expect(names.count == 2 && names.allSatisfy { MediaLibrary.id(fromFileName: $0) != nil }, "\(names)")
            #expect(try library.assets().isEmpty)
        }
        let library = try MediaLibrary(root: root)
        let assets = try LibraryFixtures.expectConsistent(library)
        // Both files are indexed under the ids in their names, with what they hold.
        #expect(Set(assets.map(\.fileURL.lastPathComponent)) == Set(names))
        let photo = try #require(assets.first { $0.kind == .photo })
        #expect(LibraryFixtures.isGeneratedName(photo.fileURL.lastPathComponent, id: photo.id))
        #expect(photo.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(abs(photo.creationDate.timeIntervalSince1970 - 1_650_000_000) < 0.001, "the date comes back from the file's time")
        let video = try #require(assets.first { $0.kind == .video })
        #expect(video.duration.seconds > 0.4 && video.duration.seconds < 0.6)
        #expect(try library.asset(id: video.id)?.fileURL.path == video.fileURL.path)
    }

    @Test func crashDuringDeleteLeavesNoDanglingRowAfterReopening() throws {
        let root = LibraryFixtures.root()
        let saved = try MediaLibrary(root: root)
        let doomed = try saved.saveImage(try LibraryFixtures.jpeg())
        let survivor = try saved.saveImage(try LibraryFixtures.jpeg(3))
        do {
            let library = try MediaLibrary(root: root, crashPoint: LibraryFixtures.crash(at: .fileSetAside))
            #expect(throws: CaptureError.self) { try library.delete(doomed) }
            // Rolled back: the row is there, its file set aside under a temporary name.
            #expect(try library.asset(id: doomed.id) != nil)
            #expect(!FileManager.default.fileExists(atPath: doomed.fileURL.path))
        }
        let library = try MediaLibrary(root: root)
        let assets = try LibraryFixtures.expectConsistent(library)
        #expect(assets.map(\.id) == [survivor.id])
    }

    @Test(.tags(.childProcess)) func reconciliationRemovesDanglingRowsAndLeavesForeignFilesAlone() throws {
        let root = LibraryFixtures.root()
        let first = try MediaLibrary(root: root)
        let gone = try first.saveImage(try LibraryFixtures.jpeg())
        let stays = try first.saveVideo(at: try FileFixtures.short(), move: false)
        // Behind the library's back: a file removed, files of other programs added.
        try FileManager.default.removeItem(at: gone.fileURL)
        let holiday = first.photosDirectory.appendingPathComponent("holiday.jpg")
        try LibraryFixtures.jpeg().write(to: holiday)
        let fake = first.videosDirectory.appendingPathComponent("20240101-000000-\(UUID().uuidString).mov")
        try Data("not a movie".utf8).write(to: fake)

        let library = try MediaLibrary(root: root)
        #expect(try library.asset(id: gone.id) == nil)
        #expect(try library.assets().map(\.id) == [stays.id])
        #expect(FileManager.default.fileExists(atPath: holiday.path) && FileManager.default.fileExists(atPath: fake.path))
        let report = try #require(try library.reconcile())
        #expect(report.removedRows.isEmpty && report.indexedFiles.isEmpty && report.removedTemporaryFiles.isEmpty)
        #expect(Set(report.ignoredFiles) == ["Photos/holiday.jpg", "Videos/\(fake.lastPathComponent)"])
    }

    @Test func deletingAnAssetWhoseFileIsGoneRemovesItsRow() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let asset = try library.saveImage(try LibraryFixtures.jpeg())
        try FileManager.default.removeItem(at: asset.fileURL)
        try library.delete(asset)
        #expect(try library.asset(id: asset.id) == nil)
        try LibraryFixtures.expectConsistent(library)
    }

    @Test func reconciliationWaitsForWritesInProgress() throws {
        let root = LibraryFixtures.root()
        let seen = Mutex<(temporaryFiles: [String], reconciled: Bool?)>(([], nil))
        let library = try MediaLibrary(root: root) { (point: MediaLibraryCrashPoint) throws(CaptureError) in
            guard point == .temporaryFileWritten else { return }
            // Another library opened on the same folders mid-write must not touch the write.
            let other = try MediaLibrary(root: root)
            let reconciled = try other.reconcile()
            let names = LibraryFixtures.names(other.photosDirectory)
            seen.withLock { $0 = (names, reconciled != nil) }
        }
        let asset = try library.saveImage(try LibraryFixtures.jpeg())
        let (temporaryFiles, reconciled) = seen.withLock { $0 }
        #expect(reconciled == false, "reconciliation is skipped while a write holds the lock")
        #expect(temporaryFiles.count == 1 && temporaryFiles[0].hasPrefix(MediaLibrary.temporaryPrefix))
        #expect(try LibraryFixtures.expectConsistent(library).map(\.id) == [asset.id])
        #expect(try library.reconcile() != nil, "and runs once the write is done")
    }
}
