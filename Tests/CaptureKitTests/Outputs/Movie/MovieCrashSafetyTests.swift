import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// What a recording leaves behind when its process dies or its disk fills up: the `capture
    /// record` command run as a child process, its file checked with ffprobe.
    @Suite(.serialized)
    struct MovieCrashSafetyTests {
        private func capture() throws -> URL {
            try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        }

        /// The seconds of video ffprobe can read in `path`, 0 while it cannot read any.
        private func readableSeconds(_ path: String) -> Double {
            guard let probe = try? ProbedMovie.probe(path), let video = probe.video else { return 0 }
            return video.duration.isNaN ? probe.duration : video.duration
        }

        @Test func sigkillLeavesAFileReadableToWithinOneFragment() async throws {
            let url = MovieFiles.path("killed", "mov")
            let child = Process()
            child.executableURL = try capture()
            child.arguments = ["record", url.path, "--preset", "vga640x480", "--quiet", "--fragment", "1s"]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }

            // The file appears when recording starts (its header is written at once); no event
            // crosses the process boundary, so the file system is watched.
            var started: Int64?
            var killedAt: Int64 = 0
            for _ in 0..<600 {
                let now = MonotonicClock.nanoseconds()
                if started == nil, FileManager.default.fileExists(atPath: url.path) { started = now }
                if let started, now - started >= 3_500_000_000 {
                    kill(child.processIdentifier, SIGKILL)
                    killedAt = now
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal)
            let start = try #require(started, "the recording never started")
            let elapsed = Double(killedAt - start) / 1e9
            let readable = readableSeconds(url.path)
            #expect(readable >= elapsed - 1.0 - 0.25, "only \(readable) s readable after \(elapsed) s of recording")
            // ffmpeg decodes it from start to end without error.
            try FileFixtures.run("ffmpeg", ["-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
        }

        @Test func aFullDiskEndsWithATypedErrorAndAPlayableFile() throws {
            let url = MovieFiles.path("full", "mov")
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            // RLIMIT_FSIZE of 200 KiB stands in for a full disk: writes past it fail with EFBIG.
            child.arguments = ["-c", "ulimit -f 200; exec \"$0\" record \"$1\" --preset vga640x480 --quiet --duration 60s",
                               try capture().path, url.path]
            let errors = Pipe()
            child.standardOutput = FileHandle.nullDevice
            child.standardError = errors
            try child.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            #expect(child.terminationStatus == 73, "exit status \(child.terminationStatus): \(message)")
            #expect(message.contains("File too large") || message.contains("errno 27"))
            #expect(!message.contains("\n") || message.split(separator: "\n").count == 1, "one line: \(message)")
            let readable = readableSeconds(url.path)
            #expect(readable > 1, "the part written before the disk filled up plays (\(readable) s)")
            try FileFixtures.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
        }

        @Test func sigtermFinishesTheFileAndExitsZero() async throws {
            let url = MovieFiles.path("terminated", "mp4")
            let child = Process()
            child.executableURL = try capture()
            child.arguments = ["record", url.path, "--preset", "vga640x480", "--quiet"]
            let output = Pipe()
            child.standardOutput = output
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Recording has produced a second of readable video (watched on the file system: no
            // event crosses the process boundary).
            for _ in 0..<300 {
                if FileManager.default.fileExists(atPath: url.path), readableSeconds(url.path) >= 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            child.terminate()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            #expect(child.terminationStatus == 0, "\(printed)")
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video), audio = try #require(probe.audio)
            #expect(video.duration >= 1)
            #expect(abs((video.startTime + video.duration) - (audio.startTime + audio.duration)) <= 1.0 / 30)
        }
    }
}
