import Foundation
import Testing
@testable import CaptureKit

/// `capture stream` as a user runs it against what cannot work: one line per problem, the
/// exit status that says which, and never the stream key.
@Suite(.serialized, .tags(.childProcess, .realTime), .excludable)
struct StreamCommandTests {
    static let key = "cli_sk_3e2d1c0b9a"

    @Test func anUnknownSchemeIsAUsageErrorThatShowsNoKey() throws {
        let result = try CaptureTool.run(["stream", "webrtc://example.com/live/\(Self.key)", "--duration", "1s"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1 && !result.errors.contains(Self.key), "\(result)")
    }

    @Test func aServerNobodyRunsIsGivenUpWithStatus69AndTheRecordingIsKept() throws {
        let port = try freeTCPPort()
        let scratch = FileFixtures.directory.appendingPathComponent("stream-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let recording = scratch.appendingPathComponent("kept.mov")
        let result = try CaptureTool.run(["stream", "rtmp://127.0.0.1:\(port)/live/\(Self.key)", "--retries", "1", "--record", recording.path,
                                          "--duration", "3s", "--preset", "low", "--no-audio"])
        #expect(result.status == 69, "\(result)")
        #expect(!result.output.contains(Self.key) && !result.errors.contains(Self.key), "\(result)")
        let failures = result.errors.split(separator: "\n").filter { $0.contains("Connection refused") }
        #expect(failures.count >= 2, "one line per failed attempt and one for the end: \(result.errors)")
        #expect(try ProbedMovie.probe(recording.path).video?.frames ?? 0 > 0, "the recording beside the failed stream is empty")
    }

    @Test func aBadBitRateIsAUsageError() throws {
        let result = try CaptureTool.run(["stream", "rtmp://127.0.0.1/live/x", "--bitrate", "fast"])
        #expect(result.status == 64 && result.errors.contains("--bitrate"), "\(result)")
    }
}
