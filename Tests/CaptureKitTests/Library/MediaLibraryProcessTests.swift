import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// The library shared between processes, through the `capture` command line: two processes
/// importing at once, and `capture library` / `capture photo --save-to-library`.
@Suite("MediaLibraryProcesses", .timeLimit(.minutes(3)), .tags(.childProcess), .excludable)
struct MediaLibraryProcessTests {
    private func capture() throws -> URL {
        try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
    }

    /// Starts `capture` with `arguments`, its output going to pipes.
    private func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try capture()
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Reads a started process's output to the end, waits for it, and returns its status and output.
    private func finish(_ started: (Process, Pipe, Pipe)) -> (status: Int32, output: String, errors: String) {
        let (process, output, errors) = started
        // Standard error is drained beside standard output so that neither can fill up and
        // block the child.
        let errorText = Recorder<String>()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            errorText.append(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        drained.wait()
        return (process.terminationStatus, text, errorText.items.joined())
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        finish(try start(arguments))
    }

    @Test func twoProcessesSavingFiftyEachLoseNothing() throws {
        let root = LibraryFixtures.root("shared")
        let photo = FileFixtures.directory.appendingPathComponent("import-\(UUID().uuidString.prefix(6)).jpg")
        try LibraryFixtures.jpeg().write(to: photo)
        let files = Array(repeating: photo.path, count: 50)
        // Both start before either is waited for; neither has opened the library yet.
        let first = try start(["library", "import"] + files + ["--root", root.path, "--json"])
        let second = try start(["library", "import"] + files + ["--root", root.path, "--json"])
        let results = [finish(first), finish(second)]
        var imported: [String] = []
        for result in results {
            #expect(result.status == 0, "\(result.errors)")
            let reports = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
            #expect(reports.count == 50)
            imported += reports.compactMap { $0["id"] as? String }
        }
        let library = try MediaLibrary(root: root)
        let assets = try LibraryFixtures.expectConsistent(library)
        #expect(assets.count == 100)
        #expect(Set(assets.map(\.id)) == Set(imported))
        #expect(LibraryFixtures.names(library.photosDirectory).count == 100)
        #expect(LibraryFixtures.names(library.photosDirectory).allSatisfy { !$0.hasPrefix(".") })
    }

    @Test func libraryCommandListsShowsExportsAndDeletes() throws {
        let root = LibraryFixtures.root("cli")
        let imported = try run(["library", "import", try FileFixtures.short().path, "--root", root.path, "--json"])
        #expect(imported.status == 0, "\(imported.errors)")
        let library = try MediaLibrary(root: root)
        let photo = try library.saveImage(try LibraryFixtures.jpeg(), creationDate: Date(timeIntervalSince1970: 1_600_000_000))

        let listed = try run(["library", "list", "--json", "--root", root.path])
        #expect(listed.status == 0, "\(listed.errors)")
        let rows = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]] ?? []
        #expect(rows.map { $0["kind"] as? String } == ["video", "photo"], "newest first")
        let videoID = try #require(rows.first?["id"] as? String)
        #expect(rows.last?["id"] as? String == photo.id)
        #expect(rows.last?["width"] as? Int == 320)
        #expect(try run(["library", "list", "--kind", "photo", "--root", root.path]).output.contains(photo.id))
        #expect(!(try run(["library", "list", "--kind", "photo", "--root", root.path]).output.contains(videoID)))

        let shown = try run(["library", "show", videoID, "--json", "--root", root.path])
        #expect(shown.status == 0, "\(shown.errors)")
        let detail = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any] ?? [:]
        #expect((detail["tracks"] as? [[String: Any]])?.first?["codec"] as? String == "h264")
        #expect(detail["tags"] as? [String: String] == nil || (detail["tags"] as? [String: String])?["title"] == "Short Clip")

        let destination = FileFixtures.directory.appendingPathComponent("exported-\(UUID().uuidString.prefix(6)).jpg")
        let exported = try run(["library", "export", photo.id, destination.path, "--root", root.path])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(try Data(contentsOf: destination) == Data(contentsOf: photo.fileURL))
        #expect(try run(["library", "export", photo.id, destination.path, "--root", root.path]).status == 73, "never overwrites")

        #expect(try run(["library", "delete", photo.id, "--root", root.path]).status == 0)
        #expect(try library.asset(id: photo.id) == nil)
        #expect(!FileManager.default.fileExists(atPath: photo.fileURL.path))
        #expect(try run(["library", "delete", photo.id, "--root", root.path]).status == 64, "an unknown id")
        #expect(try run(["library", "show", "no-such-id", "--root", root.path]).status == 64)
        #expect(try run(["library", "frobnicate", "--root", root.path]).status == 64)
        #expect(try run(["library", "import", "/etc/hostname", "--root", root.path]).status == 65, "not a media file: EX_DATAERR")
        try LibraryFixtures.expectConsistent(library)
    }

    @Test func photoCommandSavesToTheLibrary() throws {
        let root = LibraryFixtures.root("photo")
        let out = FileFixtures.directory.appendingPathComponent("shot-\(UUID().uuidString.prefix(6)).jpg")
        let result = try run(["photo", out.path, "--size", "640x480", "--save-to-library", "--root", root.path])
        #expect(result.status == 0, "\(result.errors)")
        let library = try MediaLibrary(root: root)
        let assets = try library.assets()
        #expect(assets.count == 1)
        let asset = try #require(assets.first)
        #expect(result.output.contains("saved to the library: \(asset.fileURL.path)"))
        #expect(try Data(contentsOf: asset.fileURL) == Data(contentsOf: out))
        #expect(asset.kind == .photo)
    }
}
