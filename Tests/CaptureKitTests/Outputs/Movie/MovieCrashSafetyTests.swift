import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// What a recording leaves behind when its process dies or its disk fills up: the `capture
    /// record` command run as a child process, its file checked with ffprobe. The child's
    /// progress line (on a pseudo-terminal) says how much it has recorded, which is what the
    /// file is compared with: a loaded machine records less per second of wall time, and that
    /// is not what these tests are about.
    @Suite(.serialized, .tags(.childProcess))
    struct MovieCrashSafetyTests {
        private func capture() throws -> URL {
            try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        }

        /// The seconds of video ffprobe can read in `path` (to the end of its last frame), 0
        /// while it cannot read any.
        private func readableSeconds(_ path: String) -> Double {
            guard let timeline = try? MovieTimeline(path, frameDuration: MediaTime(value: 1, timescale: 30)), timeline.frames > 0 else { return 0 }
            return timeline.end
        }

        /// The latest figure before `unit` in the progress lines `capture record` printed so far
        /// ("clip.mov     3.5 s   29.9 fps  dropped 0  1.2 MB"): "s" for the seconds recorded
        /// (handed to the encoder), "fps" for the frames it recorded per second of wall time.
        private static func progress(_ lines: [String], _ unit: Substring = "s") -> Double? {
            lines.reversed().lazy.compactMap { line -> Double? in
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: unit), index > words.startIndex else { return nil }
                return Double(words[words.index(before: index)])
            }.first
        }

        /// Starts `capture record` with `arguments`, its standard error on a pseudo-terminal (so
        /// it prints its progress line there) and its standard output on `output`.
        private func startRecording(_ arguments: [String], output: Any) throws -> (Process, PseudoTerminal) {
            let terminal = try PseudoTerminal()
            let child = Process()
            child.executableURL = try capture()
            child.arguments = ["record"] + arguments
            child.standardOutput = output
            child.standardError = terminal.childEnd
            try child.run()
            terminal.childStarted()
            return (child, terminal)
        }

        /// Waits (for the child's progress reports, not for time) until it has recorded at
        /// least `seconds`; returns what it reported then.
        private func waitUntilRecorded(_ seconds: Double, _ terminal: PseudoTerminal, timeout: Duration = .seconds(60)) async throws -> Double {
            let reached = await terminal.lines.wait(timeout: timeout) { (Self.progress($0) ?? 0) >= seconds }
            let recorded = Self.progress(terminal.lines.items)
            try #require(reached, "the child reported only \(recorded ?? 0) s recorded: \(terminal.lines.items.suffix(3))")
            return try #require(recorded)
        }

        /// The capture time of the recording's first frame, from the child's log line "movie
        /// NAME: started at capture time T s" (`--verbose`): the capture clock is
        /// CLOCK_MONOTONIC, which this process reads too.
        private static func startTime(_ lines: [String]) -> Double? {
            lines.lazy.compactMap { line -> Double? in
                guard let range = line.range(of: "started at capture time ") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != " " })
            }.first
        }

        /// The promise of a live recording (``EncoderPace``): a SIGKILL at any moment loses at
        /// most a second of what the camera had captured by then, whatever the load (the encoder
        /// steps to a faster preset, then drops frames). "Captured by then" is measured as the
        /// wall time since the first frame, which counts frames the camera never made as lost:
        /// so the suite records at VGA, where a debug build's virtual camera (30 times slower to
        /// render than a release build's) keeps its rate beside CPU hogs. The default 1080p
        /// preset is measured on a release build by `scripts/crash-under-load.py`, 10 kills per
        /// container beside two CPU hogs.
        @Test(arguments: ["mov", "mp4", "mkv"])
        func sigkillLosesAtMostOneSecondOfWhatWasCaptured(container: String) async throws {
            let url = MovieFiles.path("killed", container)
            let (child, terminal) = try startRecording([url.path, "--verbose", "--preset", "vga640x480"], output: FileHandle.nullDevice)
            defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
            let started = await terminal.lines.wait(timeout: .seconds(60)) { Self.startTime($0) != nil }
            let start = try #require(started ? Self.startTime(terminal.lines.items) : nil, "no start line: \(terminal.lines.items.suffix(3))")
            // A moment of the test's choosing, not of the child's: somewhere 1.5–4 s in.
            let delay = Double.random(in: 1.5...4)
            try await Task.sleep(for: .seconds(delay))
            let killed = MediaTime.now.seconds
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal)
            let captured = killed - start
            let readable = readableSeconds(url.path)
            #expect(captured - readable <= 1.0, "killed \(captured) s after the first frame, \(readable) s readable")
            // ffmpeg decodes it from start to end without error.
            try FileFixtures.run("ffmpeg", ["-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
        }

        @Test func aFullDiskEndsWithATypedErrorAndAPlayableFile() throws {
            let url = MovieFiles.path("full", "mov")
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            // RLIMIT_FSIZE of 200 blocks (100 KiB: dash counts 512 bytes) stands in for a full disk:
            // writes past it fail with EFBIG.
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
            // 100 KiB hold more than a second of this picture at any frame rate the machine
            // manages: the bytes per second of recording do not depend on load.
            let readable = readableSeconds(url.path)
            #expect(readable > 1, "the part written before the disk filled up plays (\(readable) s)")
            // The fragment the disk had no room for is cut off: nothing half-written is left
            // for a player to stumble on (ffmpeg says nothing at -v warning, even at the end).
            let complaints = try FileFixtures.run("ffmpeg", ["-v", "warning", "-xerror", "-i", url.path, "-f", "null", "-"], includingErrors: true)
            #expect(complaints.isEmpty, "\(String(decoding: complaints, as: UTF8.self))")
            var info = stat()
            #expect(stat(url.path, &info) == 0 && info.st_size < 200 * 512, "the file stops before the limit (dash counts 512-byte blocks): \(info.st_size) bytes")
        }

        @Test func sigtermFinishesTheFileAndExitsZero() async throws {
            let url = MovieFiles.path("terminated", "mp4")
            let output = Pipe()
            let (child, terminal) = try startRecording([url.path, "--preset", "vga640x480"], output: output)
            defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
            let recorded = try await waitUntilRecorded(1, terminal)
            child.terminate()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            #expect(child.terminationStatus == 0, "\(printed)")
            let probe = try ProbedMovie.probe(url.path)
            let timeline = try MovieTimeline(url.path, frameDuration: MediaTime(value: 1, timescale: 30))
            // A finished file holds everything handed to the encoder before the signal.
            #expect(timeline.end >= recorded, "\(timeline.end) s in the file, \(recorded) s recorded before SIGTERM")
            // The child's summary ("…: 1.533 s, 46 frames, 123456 bytes, 0 dropped") agrees with
            // the file: its frame count is the file's, and its drops cover every missing frame.
            let summary = try #require(printed.split(separator: "\n").last { $0.hasPrefix(url.path + ":") }, "\(printed)")
            let numbers = summary.dropFirst(url.path.count + 1).split(separator: ",").compactMap { Int($0.split(separator: " ").first ?? "") }
            try #require(numbers.count == 3, "\(summary)")
            #expect(timeline.isExact, "\(timeline)")
            #expect(numbers[0] == timeline.frames, "\(summary); \(timeline)")
            #expect(timeline.holes <= numbers[2], "\(summary); \(timeline)")
            timeline.expectDurationMatches(probe)
            try timeline.expectInSync(probe)
        }

        /// A segmented recording (`capture record DIR --segment 1s`) killed mid-segment: every
        /// segment the index lists is whole (decodes from start to end without error and holds
        /// the frames the index says), and the one being written plays to within a second of
        /// the kill.
        @Test func sigkillLeavesEverySegmentWholeAndTheCurrentOnePlayable() async throws {
            let folder = FileFixtures.directory.appendingPathComponent("killed-segments-\(UUID().uuidString.prefix(8))")
            let (child, terminal) = try startRecording([folder.path, "--segment", "1s", "--preset", "vga640x480", "--no-audio"],
                                                       output: FileHandle.nullDevice)
            defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
            _ = try await waitUntilRecorded(1, terminal)
            let index = folder.appendingPathComponent(SegmentFolder.indexName)
            @Sendable func entries() -> [[String: Any]] {
                ((try? String(contentsOf: index, encoding: .utf8)) ?? "").split(separator: "\n")
                    .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            }
            let indexed = await pollUntil(timeout: .seconds(60)) { entries().count >= 3 }
            #expect(indexed, "segments indexed: \(entries().count)")
            // Somewhere inside a segment, at a moment of the test's choosing.
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...900)))
            let killed = Date().timeIntervalSince1970
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let listed = entries()
            for entry in listed {
                let file = folder.appendingPathComponent(try #require(entry["file"] as? String))
                try FileFixtures.run("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
                let timeline = try MovieTimeline(file.path, frameDuration: MediaTime(value: 1, timescale: 30))
                #expect(timeline.frames == entry["videoFrames"] as? Int, "\(file.lastPathComponent): \(timeline.frames) frames, index \(entry)")
            }
            let names = Set(listed.compactMap { $0["file"] as? String })
            // The one being written, and at most one cut just before the kill and not yet
            // indexed, which plays.
            let current = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") && !names.contains($0) }.sorted()
            #expect(current.count >= 1 && current.count <= 2, "segments not indexed: \(current)")
            for name in current.dropLast() { #expect(readableSeconds(folder.appendingPathComponent(name).path) > 0, "\(name) plays") }
            if current.count == 1, let name = current.first, let last = listed.last, let start = last["start"] as? Double,
               let duration = last["duration"] as? Double {
                // The current segment began where the last listed one ended.
                let readable = readableSeconds(folder.appendingPathComponent(name).path)
                let written = killed - (start + duration)
                #expect(written - readable <= 1.0, "\(name): killed \(written) s in, \(readable) s readable")
            }
        }
    }
}
