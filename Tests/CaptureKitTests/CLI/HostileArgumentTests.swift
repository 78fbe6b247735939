import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// `capture` given what a careless user or an attacker gives it: existing files to write over,
/// FIFOs, folders, empty and dash-led words, durations that round to nothing, missing inputs,
/// an unusable library. Each case runs the real executable in a fresh folder holding a few
/// files, and checks the exit status (sysexits: 64 usage, 65 bad input data, 66 no input, 73
/// cannot create), the message, and that nothing was written or replaced.
@Suite("HostileArguments", .tags(.childProcess), .excludable)
struct HostileArgumentTests {
    /// One command line and what it must do.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var says: String
        /// Files of the folder that must be exactly as they were.
        var untouched: [String] = []
        /// Names that must not exist afterwards.
        var absent: [String] = []

        var testDescription: String { "capture " + arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ") }
    }

    static let cases: [Case] = [
        // Writers never replace a file unless told to (defect 2).
        Case(arguments: ["photo", "existing.mov"], status: 73, says: "already exists", untouched: ["existing.mov"]),
        Case(arguments: ["thumbnail", "picture.png", "existing.mov"], status: 73, says: "already exists", untouched: ["existing.mov"]),
        Case(arguments: ["record", "existing.mov", "--duration", "1s"], status: 73, says: "already exists", untouched: ["existing.mov"]),
        // FIFOs are refused at once rather than waited on (defect 5).
        Case(arguments: ["probe", "fifo.mp4"], status: 66, says: "FIFO"),
        Case(arguments: ["thumbnail", "fifo.mp4", "t.jpg"], status: 66, says: "FIFO", absent: ["t.jpg"]),
        Case(arguments: ["record", "out.mov", "--device", "file:fifo.mp4"], status: 66, says: "FIFO", absent: ["out.mov"]),
        // Durations that round to nothing are not "no limit" (defect 6).
        Case(arguments: ["record", "out.mov", "--duration", "0.0001ms"], status: 64, says: "at least 1ms", absent: ["out.mov"]),
        Case(arguments: ["levels", "--duration", "1e-30"], status: 64, says: "at least 1ms"),
        // A missing input is EX_NOINPUT everywhere (defect 9).
        Case(arguments: ["probe", "missing.mp4"], status: 66, says: "no such file"),
        Case(arguments: ["thumbnail", "missing.mp4", "t.jpg"], status: 66, says: "no such file", absent: ["t.jpg"]),
        Case(arguments: ["library", "import", "missing.jpg", "--root", "lib"], status: 66, says: "no such file", absent: ["lib"]),
        Case(arguments: ["record", "out.mov", "--device", "file:missing.mp4"], status: 66, says: "no such file", absent: ["out.mov"]),
        // A file that is no media file is bad input data.
        Case(arguments: ["probe", "existing.mov"], status: 65, says: "not a media file"),
        // Messages a person can act on (defect 11).
        Case(arguments: ["photo", "folder"], status: 73, says: "is a folder"),
        Case(arguments: ["photo", ""], status: 64, says: "OUT is empty"),
        // A raw photo needs a camera with Bayer formats; the library takes no DNG.
        Case(arguments: ["photo", "raw.dng", "--device", "virtual-camera"], status: 64, says: "offers no raw Bayer format", absent: ["raw.dng"]),
        Case(arguments: ["photo", "raw.dng", "--save-to-library", "--root", "lib"], status: 64, says: "not DNG", absent: ["raw.dng", "lib"]),
        Case(arguments: ["thumbnail", "picture.png", ""], status: 64, says: "OUT is empty"),
        Case(arguments: ["record", "folder"], status: 73, says: "is a folder"),
        Case(arguments: ["controls", "virtual-camera", "--set", "nosuch=1"], status: 64, says: "has no control 'nosuch'"),
        // FFmpeg's own reason, not the errno its error code carries ("Device or resource busy").
        Case(arguments: ["probe", "huge.y4m"], status: 65, says: "Picture size 60000x60000 is invalid"),
        Case(arguments: ["thumbnail", "huge.y4m", "t.jpg"], status: 65, says: "Picture size 60000x60000 is invalid", absent: ["t.jpg"]),
        Case(arguments: ["record", "out.mov", "--device", "file:huge.y4m", "--no-audio"], status: 65, says: "Picture size 60000x60000 is invalid",
             absent: ["out.mov"]),
        // An empty path is not the current folder (defect 12).
        Case(arguments: ["library", "list", "--root", ""], status: 64, says: "--root is empty", absent: ["Photos", "Videos", "library.sqlite"]),
        Case(arguments: ["preview", "--web", "--library", ""], status: 64, says: "--library is empty", absent: ["Photos", "Videos", "library.sqlite"]),
        // Words that start with - are never file names (defect 13); after --, they are.
        Case(arguments: ["photo", "-x"], status: 64, says: "unknown option -x", absent: ["-x"]),
        Case(arguments: ["photo", "--"], status: 64, says: "missing OUT", absent: ["--"]),
        // An unusable library fails before anything is recorded (defect 4).
        Case(arguments: ["record", "out.mov", "--duration", "1s", "--save-to-library", "--root", "existing.mov/lib"], status: 73,
             says: "is not a folder", absent: ["out.mov"]),
    ]

    @Test(arguments: cases)
    func isRefusedClearlyAndWritesNothing(_ example: Case) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try example.untouched.map { try Data(contentsOf: folder.appendingPathComponent($0)) }
        let result = try CaptureTool.run(example.arguments, in: folder, timeout: .seconds(60))
        #expect(!result.timedOut, "\(result)")
        #expect(result.status == example.status, "\(result)")
        #expect(result.errors.contains(example.says), "\(result)")
        #expect(!result.errors.contains("NSCocoaErrorDomain"), "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1, "one line of error: \(result)")
        for (name, data) in zip(example.untouched, before) {
            #expect((try? Data(contentsOf: folder.appendingPathComponent(name))) == data, "\(name) was changed")
        }
        for name in example.absent {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name) was made")
        }
    }

    /// Told to, a writer replaces the file; and `--` lets a file's name start with -.
    @Test func overwriteAndEndOfOptionsDoWhatTheySay() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let replaced = try CaptureTool.run(["thumbnail", "picture.png", "existing.mov", "--overwrite"], in: folder)
        #expect(replaced.status == 0, "\(replaced)")
        let data = try Data(contentsOf: folder.appendingPathComponent("existing.mov"))
        #expect(data.starts(with: [0xFF, 0xD8, 0xFF]), "existing.mov is now the JPEG thumbnail")
        let dashed = try CaptureTool.run(["thumbnail", "picture.png", "--", "-t.jpg"], in: folder)
        #expect(dashed.status == 0, "\(dashed)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("-t.jpg").path))
    }

    /// FFmpeg's own log lines (`[mov,mp4,… @ 0x…] moov atom not found`) never reach stderr: the
    /// error says what went wrong, once. `--verbose` shows them (defect 7).
    @Test func ffmpegLogLinesStayOutOfStderrUnlessAskedFor() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let movie = folder.appendingPathComponent("whole.mp4")
        try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:d=1", "-c:v", "mpeg4", movie.path])
        let whole = try Data(contentsOf: movie)
        try whole.prefix(whole.count / 2).write(to: folder.appendingPathComponent("truncated.mp4"))
        for arguments in [["probe", "truncated.mp4"], ["thumbnail", "truncated.mp4", "t.jpg"], ["probe", "existing.mov"]] {
            let quiet = try CaptureTool.run(arguments, in: folder)
            #expect(quiet.status != 0, "\(quiet)")
            #expect(quiet.errors.split(separator: "\n").count == 1 && quiet.errors.hasPrefix("capture: "), "\(quiet)")
            #expect(!quiet.errors.contains(" @ 0x"), "an FFmpeg log line leaked: \(quiet)")
        }
        let verbose = try CaptureTool.run(["probe", "truncated.mp4", "--verbose"], in: folder)
        #expect(verbose.errors.contains("ffmpeg: ") && verbose.errors.contains("moov atom not found"), "\(verbose)")
    }

    /// The library reads no FIFO either: a program using CaptureKit gets an error at once.
    @Test func theLibraryRefusesAFIFOWithoutWaiting() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: CaptureError.self) { try MediaFileInfo(contentsOf: folder.appendingPathComponent("fifo.mp4")) }
        do {
            _ = try MediaFileInfo(contentsOf: folder.appendingPathComponent("fifo.mp4"))
        } catch {
            #expect(error.code == .unsupportedFile && error.message.contains("FIFO"), "\(error)")
        }
    }

    /// A fresh folder with `existing.mov` (not a movie: a few bytes a writer must not replace),
    /// `picture.png` (a real picture), `huge.y4m` (a Y4M header declaring 60000x60000 frames),
    /// a FIFO `fifo.mp4` and a folder `folder`.
    private static func folder() throws -> URL {
        let folder = FileFixtures.directory.appendingPathComponent("hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data("precious, not a movie\n".utf8).write(to: folder.appendingPathComponent("existing.mov"))
        try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=red:s=32x24", "-frames:v", "1",
                                        folder.appendingPathComponent("picture.png").path])
        try Data("YUV4MPEG2 W60000 H60000 F30:1 C420jpeg\nFRAME\n".utf8 + [UInt8](repeating: 0, count: 1000))
            .write(to: folder.appendingPathComponent("huge.y4m"))
        guard mkfifo(folder.appendingPathComponent("fifo.mp4").path, 0o600) == 0 else {
            throw CaptureError(.fileError, "mkfifo failed", errno: errno)
        }
        return folder
    }
}
