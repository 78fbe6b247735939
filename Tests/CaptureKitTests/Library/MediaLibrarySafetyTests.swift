import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// What keeps a library whole: generated file names, private permissions, and reconciliation
/// after a crash at each step of a write: the `capture` command killed by SIGKILL as it enters a
/// chosen system call (``SystemCallCrash``, through strace). The tests with a movie (made by the
/// ffmpeg command line) run a child process.
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

    /// The spellings of rename(2) (glibc's `rename` is one of them, by architecture).
    private static let rename = ["rename", "renameat", "renameat2"]

    @Test(.tags(.childProcess)) func crashAfterTheTemporaryFileLeavesNothingAfterReopening() throws {
        let root = LibraryFixtures.root()
        let library = try MediaLibrary(root: root)
        let photo = FileFixtures.directory.appendingPathComponent("crash-\(UUID().uuidString.prefix(8)).jpg")
        try LibraryFixtures.jpeg().write(to: photo)
        for file in [photo, try FileFixtures.short()] {
            // Killed as it moves the written, synced temporary file into place. (The next
            // command's open reconciles what this one left.)
            let crashed = try SystemCallCrash.run(["library", "import", file.path, "--root", root.path], root: root, at: Self.rename)
            #expect(crashed.wasSignalled && crashed.status == SIGKILL, "\(crashed)")
            let leftovers = LibraryFixtures.names(library.photosDirectory) + LibraryFixtures.names(library.videosDirectory)
            #expect(leftovers.count == 1 && leftovers.allSatisfy { $0.hasPrefix(MediaLibrary.temporaryPrefix) }, "\(leftovers)")
            #expect(try library.assets().isEmpty)
        }
        let reopened = try MediaLibrary(root: root)
        let kept = try reopened.saveImage(try LibraryFixtures.jpeg())
        let assets = try LibraryFixtures.expectConsistent(reopened)
        #expect(assets.map(\.id) == [kept.id])
    }

    @Test(.tags(.childProcess)) func crashBetweenRenameAndIndexLeavesNoOrphanAfterReopening() throws {
        let root = LibraryFixtures.root()
        let library = try MediaLibrary(root: root)
        let photo = FileFixtures.directory.appendingPathComponent("crash-\(UUID().uuidString.prefix(8)).jpg")
        try LibraryFixtures.jpeg().write(to: photo)
        let date = Date(timeIntervalSince1970: 1_650_000_000)
        var times = [timeval(tv_sec: 1_650_000_000, tv_usec: 0), timeval(tv_sec: 1_650_000_000, tv_usec: 0)]
        #expect(utimes(photo.path, &times) == 0)
        var names: [String] = []
        for file in [photo, try FileFixtures.short()] {
            // Killed as it syncs the folder the file was just renamed into: before its row.
            let crashed = try SystemCallCrash.run(["library", "import", file.path, "--root", root.path], root: root,
                                                  at: ["fsync"], after: Self.rename)
            #expect(crashed.wasSignalled && crashed.status == SIGKILL, "\(crashed)")
            // A complete file in place without a row: what a crash at that moment leaves.
            let now = LibraryFixtures.names(library.photosDirectory) + LibraryFixtures.names(library.videosDirectory)
            let added = Set(now).subtracting(names)
            let id = try #require(added.count == 1 ? added.first.flatMap(MediaLibrary.id(fromFileName:)) : nil, "\(now)")
            #expect(try library.asset(id: id) == nil)
            names = now
        }
        let reopened = try MediaLibrary(root: root)
        let assets = try LibraryFixtures.expectConsistent(reopened)
        // Both files are indexed under the ids in their names, with what they hold.
        #expect(Set(assets.map(\.fileURL.lastPathComponent)) == Set(names))
        let image = try #require(assets.first { $0.kind == .photo })
        #expect(LibraryFixtures.isGeneratedName(image.fileURL.lastPathComponent, id: image.id))
        #expect(image.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(abs(image.creationDate.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001, "the date comes back from the file's time")
        let video = try #require(assets.first { $0.kind == .video })
        #expect(video.duration.seconds > 0.4 && video.duration.seconds < 0.6)
        #expect(try reopened.asset(id: video.id)?.fileURL.path == video.fileURL.path)
    }

    @Test(.tags(.childProcess)) func crashDuringDeleteLeavesNoDanglingRowAfterReopening() throws {
        let root = LibraryFixtures.root()
        let saved = try MediaLibrary(root: root)
        let doomed = try saved.saveImage(try LibraryFixtures.jpeg())
        let survivor = try saved.saveImage(try LibraryFixtures.jpeg(3))
        // Killed as SQLite writes the commit of the row's removal, the file already set aside.
        let crashed = try SystemCallCrash.run(["library", "delete", doomed.id, "--root", root.path], root: root,
                                              at: ["pwrite64"], after: Self.rename)
        #expect(crashed.wasSignalled && crashed.status == SIGKILL, "\(crashed)")
        // Not committed: the row is there, its file set aside under a temporary name.
        #expect(try saved.asset(id: doomed.id) != nil)
        #expect(!FileManager.default.fileExists(atPath: doomed.fileURL.path))
        #expect(LibraryFixtures.names(saved.photosDirectory).contains { $0.hasPrefix(MediaLibrary.temporaryPrefix) })
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
        let library = try MediaLibrary(root: root)
        // A write in progress, as `store` makes one: the shared lock held, its temporary file
        // written, no row yet.
        let temporary = library.photosDirectory.appendingPathComponent(MediaLibrary.temporaryName(id: UUID().uuidString, fileExtension: "jpg"))
        let other: MediaLibrary
        do {
            let writing = try MediaLibraryLock.shared(library.lockURL.path)
            try LibraryFixtures.jpeg().write(to: temporary)
            // Another library opened on the same folders mid-write must not touch the write.
            other = try MediaLibrary(root: root)
            #expect(try other.reconcile() == nil, "reconciliation is skipped while a write holds the lock")
            #expect(FileManager.default.fileExists(atPath: temporary.path))
            withExtendedLifetime(writing) {}
        }
        #expect(try other.reconcile() != nil, "and runs once the write is done")
        #expect(!FileManager.default.fileExists(atPath: temporary.path), "the interrupted write's file is removed")
        #expect(try LibraryFixtures.expectConsistent(other).isEmpty)
    }
}
