import Foundation
import Testing
@testable import CaptureKit

/// The hostile-file corpus, once (issue 14's fuzz target, as CI runs it): scripts/fuzz/corpus.py
/// makes small media files of every kind with ffmpeg and six mutations of each (seed 1), and
/// scripts/fuzz/run.py puts every one through `capture probe`, `thumbnail`, `library import`
/// and `record --device file:`, failing any run that crashed, hung, exited with a status capture
/// never uses, printed more than one line of error or let an FFmpeg log line through.
/// `scripts/fuzz.sh MINUTES` runs the same with fresh seeds for as long as asked.
@Suite("HostileFiles", .tags(.childProcess), .excludable)
struct HostileFileTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/fuzz")

    @Test func theCorpusCrashesNothingHangsNothingAndLeaksNoLogLine() throws {
        let capture = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        let corpus = FileFixtures.directory.appendingPathComponent("fuzz-corpus")
        let listed = try FileFixtures.run("/usr/bin/python3", [Self.scripts.appendingPathComponent("corpus.py").path, corpus.path,
                                                               "--mutations", "6", "--seed", "1"])
        let files = String(decoding: listed, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(files.count == 8 * 7, "8 seeds and 6 mutations of each: \(files.count)")
        let report = try FileFixtures.run("/usr/bin/python3", [Self.scripts.appendingPathComponent("run.py").path, capture.path] + files
                                                              + ["--timeout", "60"], includingErrors: true)
        print(String(decoding: report, as: UTF8.self).split(separator: "\n").last ?? "")
    }
}
