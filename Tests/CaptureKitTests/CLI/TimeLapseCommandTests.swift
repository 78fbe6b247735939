import Foundation
import Testing
@testable import CaptureKit

/// `capture timelapse` as a user runs it: a `file:` device read unpaced (exact capture times),
/// into a movie and a folder; SIGINT finishing the movie of a real-time camera; and one-line
/// usage errors for what cannot work.
@Suite(.serialized, .tags(.childProcess), .excludable)
struct TimeLapseCommandTests {
    @Test func aFileDeviceMakesOneShotPerSecondIntoAMovieAndAFolder() throws {
        let scratch = try PhotoScratch()
        let clip = scratch.path + "/clip.mp4"
        try FileFixtures.ffmpeg(FileFixtures.picture(size: "160x120", fps: 30, seconds: 10), to: clip)
        let result = try CaptureTool.run(["timelapse", "--every", "1s", "--device", "file:\(clip)", "--unpaced", "--movie", "lapse.mp4",
                                          "--fps", "25", "--folder", "shots"], in: URL(fileURLWithPath: scratch.path))
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("10 shots, 0 missed, 300 frames seen"), "\(result.output)")
        let reading = try TimeLapseMovieReading(scratch.path + "/lapse.mp4", width: 160, height: 120)
        #expect(reading.frameRate == "25/1")
        #expect(reading.packetTimes.count == 10)
        for (k, time) in reading.packetTimes.enumerated() { #expect(abs(time - Double(k) / 25) < 0.001) }
        let photos = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/shots").filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(photos.count == 10)
        let dates = try photos.map { try exifCaptureDate(scratch.path + "/shots/" + $0, in: scratch) }
        for (k, date) in dates.enumerated() { #expect(abs(date.timeIntervalSince(dates[0]) - Double(k)) < 0.0015, "photo \(k)") }
    }

    @Test(.tags(.realTime)) func ctrlCFinishesTheMovieOfALiveCamera() throws {
        let scratch = try PhotoScratch()
        let process = Process()
        process.executableURL = MovieFiles.captureExecutable
        process.arguments = ["timelapse", "--every", "200ms", "--movie", scratch.path + "/live.mkv", "--verbose"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // The movie's first fragment is on disk once a shot or two were taken (bounded wait).
        var readable = false
        for _ in 0..<100 where !readable {
            usleep(100_000)
            readable = ((try? FileManager.default.attributesOfItem(atPath: scratch.path + "/live.mkv")[.size] as? Int) ?? 0) > 2000
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        _ = errors.fileHandleForReading.readDataToEndOfFile()
        #expect(readable, "the movie grew while the time-lapse ran")
        #expect(process.terminationStatus == 0)
        let reading = try TimeLapseMovieReading(scratch.path + "/live.mkv", width: 0, height: 0, decoding: false)
        #expect(!reading.packetTimes.isEmpty)
        for (k, time) in reading.packetTimes.enumerated() where k > 0 {
            let frames = (time - reading.packetTimes[0]) * 30
            #expect(abs(frames - frames.rounded()) < 0.02, "packet \(k) on the 30 fps grid (Matroska keeps milliseconds)")
        }
    }

    @Test(arguments: [
        (["timelapse", "--movie", "x.mp4"], "--every"),
        (["timelapse", "--every", "0s", "--movie", "x.mp4"], "--every"),
        (["timelapse", "--every", "1s"], "where the shots go"),
        (["timelapse", "--every", "1s", "--movie", "x.mp4", "--window", "25:00-26:00"], "--window"),
        (["timelapse", "--every", "1s", "--movie", "x.mp4", "--duration", "5s", "--shots", "3"], "not both"),
        (["timelapse", "--every", "1s", "--folder", "x", "--fps", "30"], "--fps goes with --movie"),
        (["timelapse", "--every", "1s", "--movie", "x.mp4", "--fps", "0"], "--fps"),
    ])
    func mistakesAreOneLineUsageErrors(arguments: [String], mentions: String) throws {
        let scratch = try PhotoScratch()
        let result = try CaptureTool.run(arguments, in: URL(fileURLWithPath: scratch.path))
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1 && result.errors.contains(mentions), "\(result.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "nothing was made")
    }

    @Test func helpListsTheOptions() throws {
        let result = try CaptureTool.run(["timelapse", "--help"])
        #expect(result.status == 0)
        for option in ["--every", "--movie", "--library", "--folder", "--device", "--duration", "--shots", "--window", "--fps"] {
            #expect(result.output.contains(option), "\(option)")
        }
        #expect(try CaptureTool.run(["--help"]).output.contains("timelapse"))
    }
}
