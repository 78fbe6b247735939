import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// Media files for the file-device and probe suites, made by the ffmpeg command line (a tool
// nobody here wrote) once per test process, and helpers to read what ffmpeg/ffprobe say about
// them: the oracles the tests compare CaptureKit against.

/// A failed tool run, with its standard error.
struct ToolFailure: Error, CustomStringConvertible {
    var description: String
}

enum FileFixtures {
    /// A fresh directory for this test process's files.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capturekit-file-tests-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private static let made = Mutex<[String: URL]>([:])

    /// Runs `tool` with `arguments` and returns its standard output (with its standard error
    /// mixed in when `includingErrors`, for tools that report there); throws with its standard
    /// error when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], includingErrors: Bool = false) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = includingErrors ? output : errors
        try process.run()
        // Read before waiting so a full pipe cannot block the tool.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let messages = includingErrors ? data : errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: messages, as: UTF8.self))")
        }
        return data
    }

    /// The file `name` in the fixture directory, made by `make` (given its path) the first time
    /// it is asked for. Serialised, so parallel tests share one copy.
    static func file(_ name: String, _ make: (String) throws -> Void) throws -> URL {
        try made.withLock { made in
            if let url = made[name] { return url }
            let url = directory.appendingPathComponent(name)
            try make(url.path)
            made[name] = url
            return url
        }
    }

    /// ffmpeg's arguments for a test picture (`testsrc2`) of `seconds` at `size` and `fps`.
    static func picture(size: String = "320x240", fps: Int = 30, seconds: Double) -> [String] {
        ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(fps):duration=\(seconds)"]
    }

    /// ffmpeg's arguments for a 440 Hz tone of `seconds` at 48 kHz.
    static func tone(seconds: Double) -> [String] {
        ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"]
    }

    static func ffmpeg(_ arguments: [String], to path: String) throws {
        try run("ffmpeg", ["-v", "error", "-y", "-nostdin"] + arguments + [path])
    }

    /// 2 s of 320x240 H.264 at 30 fps (60 frames) and AAC mono 48 kHz, in MP4.
    static func mp4() throws -> URL {
        try file("av.mp4") { try ffmpeg(picture(seconds: 2) + tone(seconds: 2) + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], to: $0) }
    }

    /// The same picture with 16-bit PCM (exactly 96 000 samples), in Matroska: no frame
    /// count in the container, a 1 ms time base.
    static func mkv() throws -> URL {
        try file("av.mkv") { try ffmpeg(picture(seconds: 2) + tone(seconds: 2) + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le"], to: $0) }
    }

    /// 0.5 s (15 frames) of 160x120 H.264 at 30 fps, no audio, with a title tag.
    static func short() throws -> URL {
        try file("short.mp4") {
            try ffmpeg(picture(size: "160x120", seconds: 0.5) + ["-c:v", "libx264", "-preset", "ultrafast", "-metadata", "title=Short Clip"], to: $0)
        }
    }

    /// 0.5 s of H.264 in 4:4:4, a layout CaptureKit does not have (delivered as I420).
    static func yuv444() throws -> URL {
        try file("yuv444.mp4") {
            try ffmpeg(picture(size: "160x120", seconds: 0.5) + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p"], to: $0)
        }
    }

    /// ``short()`` with a display matrix saying "rotate 90°" (the `rotate` tag on a stream copy).
    static func rotated() throws -> URL {
        let source = try short()
        return try file("rotated.mp4") { try ffmpeg(["-i", source.path, "-c", "copy", "-metadata:s:v:0", "rotate=90"], to: $0) }
    }

    /// 1 s of AAC only, in M4A.
    static func audioOnly() throws -> URL {
        try file("tone.m4a") { try ffmpeg(tone(seconds: 1) + ["-c:a", "aac"], to: $0) }
    }

    /// ``mp4()`` with its index first (`faststart`) cut to half its size: it opens, plays its
    /// first frames, then its packets run past the end of the file.
    static func truncated() throws -> URL {
        let source = try mp4()
        return try file("truncated.mp4") { path in
            let faststart = directory.appendingPathComponent("faststart.mp4").path
            try ffmpeg(["-i", source.path, "-c", "copy", "-movflags", "+faststart"], to: faststart)
            let data = try Data(contentsOf: URL(fileURLWithPath: faststart))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        }
    }

    /// 64 KiB of pseudo-random bytes (a fixed seed, so every run gets the same "file").
    static func noise() throws -> URL {
        try file("noise.mp4") { path in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let bytes = (0..<65_536).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// A subtitle file: media FFmpeg reads, with neither video nor audio.
    static func subtitles() throws -> URL {
        try file("subtitles.srt") { path in
            try Data("1\n00:00:00,000 --> 00:00:01,000\nHello\n\n".utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    // MARK: Oracles

    /// What ffprobe says about one stream (`v:0`, `a:0`) when it decodes every frame.
    static func ffprobe(_ url: URL, stream: String, entries: String) throws -> [String: String] {
        let data = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", stream, "-show_entries", "stream=\(entries)",
                                       "-of", "default=noprint_wrappers=1", url.path])
        var result: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }

    /// ffprobe's container duration in seconds.
    static func ffprobeDuration(_ url: URL) throws -> Double? {
        let data = try run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Frame 0 as ffmpeg decodes it, as packed I420.
    static func ffmpegFirstFrame(_ url: URL) throws -> [UInt8] {
        [UInt8](try run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
    }

    /// The whole audio track as ffmpeg decodes it, as 16-bit mono samples.
    static func ffmpegSamples(_ url: URL) throws -> [Int16] {
        let data = try run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-vn", "-ac", "1", "-f", "s16le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Peak signal-to-noise ratio of two byte strings in dB (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            sum += d * d
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(a.count)))
    }
}

/// Options for a file device of one test: unique IDs so parallel tests never clash.
func fileOptions(_ pacing: FileDeviceOptions.Pacing, looping: Bool = false) -> FileDeviceOptions {
    var options = FileDeviceOptions(pacing: pacing, looping: looping)
    options.uniqueID = "test-file-\(UUID().uuidString.prefix(8))"
    return options
}

/// Streams a device straight from its backend (no session, so nothing drops) and records
/// what the stream sends.
final class DeviceStreamRecorder: Sendable {
    enum Event: Sendable, Equatable {
        case endOfStream
        case failed(CaptureError.Code)
        case other
    }

    /// Samples with their monotonic arrival time in nanoseconds.
    let samples = Recorder<(sample: SampleBuffer, arrival: Int64)>()
    let events = Recorder<Event>()
    private let stream: any DeviceStream

    init(_ device: CaptureDevice) throws(CaptureError) {
        let samples = samples, events = events
        let sink = StreamSink(deliver: { samples.append(($0, MonotonicClock.nanoseconds())) }, event: { event in
            switch event {
            case .endOfStream: events.append(.endOfStream)
            case .failed(let error): events.append(.failed(error.code))
            default: events.append(.other)
            }
        })
        stream = try device.backend.startStream(device.streamConfiguration, sink: sink)
    }

    /// Waits for the stream to end (or fail).
    func waitForEnd(timeout: Duration = .seconds(20)) async -> Bool {
        await events.wait(timeout: timeout) { $0.contains(.endOfStream) || $0.contains { if case .failed = $0 { true } else { false } } }
    }

    func stop() { stream.stop() }

    deinit { stream.stop() }
}
