import Foundation
import Testing
@testable import CaptureKit

/// File names that are not UTF-8 (Linux allows any bytes but `/` and NUL; Swift strings cannot
/// hold them): `capture` opens such inputs by their bytes, and refuses such outputs clearly
/// instead of writing a file whose name has U+FFFD in place of the bytes. The names are made
/// and passed by `sh` with `printf`, since a Swift process can only pass UTF-8 arguments.
@Suite(.tags(.childProcess))
struct NonUTF8NameTests {
    private struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `script` in `sh` inside `folder`, with the capture executable as `$0` and `BAD`
    /// set to the bytes FF FE.
    private func sh(_ script: String, in folder: URL) throws -> Run {
        let capture = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "cd \"$1\" && BAD=\"$(printf '\\377\\376')\" && \(script)", capture.path, folder.path]
        let output = Pipe(), errors = Pipe()
        child.standardOutput = output
        child.standardError = errors
        try child.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = errors.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return Run(status: child.terminationStatus, output: String(decoding: printed, as: UTF8.self), errors: String(decoding: complained, as: UTF8.self))
    }

    private func folder() throws -> URL {
        let url = FileFixtures.directory.appendingPathComponent("non-utf8-\(UUID().uuidString.prefix(6))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anInputWhoseNameIsNotUTF8IsProbedThumbnailedAndPlayed() throws {
        let scratch = try folder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let made = try sh("ffmpeg -v error -f lavfi -i testsrc2=s=160x120:r=10:d=1 -c:v libx264 -pix_fmt yuv420p \"$BAD.mp4\"", in: scratch)
        try #require(made.status == 0, "\(made)")

        let probe = try sh("exec \"$0\" probe \"$BAD.mp4\" --json", in: scratch)
        #expect(probe.status == 0, "\(probe)")
        #expect(probe.output.contains("h264") && probe.output.contains("160"), "\(probe)")

        let thumbnail = try sh("exec \"$0\" thumbnail \"$BAD.mp4\" t.jpg", in: scratch)
        #expect(thumbnail.status == 0, "\(thumbnail)")
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("t.jpg").path))

        // As a file device: its frames become a movie.
        let record = try sh("exec \"$0\" record out.mov --device \"file:$BAD.mp4\" --no-audio --unpaced --quiet", in: scratch)
        #expect(record.status == 0, "\(record)")
        let timeline = try MovieTimeline(scratch.appendingPathComponent("out.mov").path, frameDuration: MediaTime(value: 1, timescale: 10))
        #expect(timeline.frames == 10, "\(timeline)")
    }

    @Test func aMissingInputWhoseNameIsNotUTF8IsReportedMissing() throws {
        let scratch = try folder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let probe = try sh("exec \"$0\" probe \"$BAD.mp4\"", in: scratch)
        #expect(probe.status == 66, "\(probe)")
        #expect(probe.errors.contains("no such file"), "\(probe)")
    }

    @Test func anOutputWhoseNameIsNotUTF8IsRefusedAndNothingIsWritten() throws {
        let scratch = try folder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let photo = try sh("exec \"$0\" photo \"$BAD.jpg\"", in: scratch)
        #expect(photo.status == 64, "\(photo)")
        #expect(photo.errors.contains("not valid UTF-8"), "\(photo)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }
}
