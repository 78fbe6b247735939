import Foundation
import Testing
@testable import CaptureKit

/// `capture probe URL` and `capture record --device URL` against GStreamer's RTSP server
/// asking for a password: what the stream sends, a movie of it, and never the password; and
/// a movie of a camera with its own sound.
@Suite(.serialized, .tags(.childProcess, .realTime), .excludable)
struct NetworkCameraCommandTests {
    static let password = "cli-pw-5e4d3c2b"

    @Test func probeDescribesALiveStreamWithoutItsPassword() throws {
        let server = try RTSPCameraServer.start(user: "viewer", password: Self.password)
        defer { server.stop() }
        let result = try CaptureTool.run(["probe", server.url(), "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains(Self.password) && !result.errors.contains(Self.password), "\(result)")
        #expect(result.output.contains("\"codec\" : \"h264\"") && result.output.contains("\"width\" : 320"), "\(result.output)")
        let refused = try CaptureTool.run(["probe", server.url(password: "nope-\(Self.password)")])
        #expect(refused.status == 69, "\(refused)")
        #expect(refused.errors.split(separator: "\n").count == 1 && !refused.errors.contains(Self.password), "\(refused)")
    }

    @Test func recordTakesANetworkCameraAsItsDevice() throws {
        let server = try RTSPCameraServer.start(user: "viewer", password: Self.password)
        defer { server.stop() }
        let scratch = FileFixtures.directory.appendingPathComponent("network-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let movie = scratch.appendingPathComponent("door.mkv")
        let result = try CaptureTool.run(["record", movie.path, "--device", server.url(), "--no-audio", "--duration", "2s"])
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains(Self.password) && !result.errors.contains(Self.password), "\(result)")
        let info = try MediaFileInfo(contentsOf: movie)
        let video = try #require(info.videoStream)
        #expect(video.width == 320 && video.height == 240, "\(video)")
        #expect((video.frameCount ?? 0) >= 15, "\(video)")
    }

    /// With no audio device named, a network camera is recorded with its own sound: the
    /// movie's sound is the camera's (48 kHz mono, from the flash-and-beep movie it plays).
    @Test func recordTakesANetworkCamerasOwnSound() throws {
        let server = try RTSPCameraServer.start(playing: try FlashAndBeep.movie())
        defer { server.stop() }
        let movie = FileFixtures.directory.appendingPathComponent("network-cli-sound-\(UUID().uuidString.prefix(8)).mp4")
        defer { try? FileManager.default.removeItem(at: movie) }
        let result = try CaptureTool.run(["record", movie.path, "--device", server.url(), "--duration", "3s", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let probed = try ProbedMovie.probe(movie.path)
        #expect(probed.video?.codec == "h264" && probed.audio?.codec == "aac", "\(probed.streams)")
        #expect(probed.audio?.sampleRate == FlashAndBeep.sampleRate, "\(probed.streams)")
        #expect((probed.audio?.duration ?? 0) >= 2, "\(probed.streams)")
    }
}
