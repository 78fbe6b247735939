import Foundation
import Testing
@testable import CaptureKit

/// `capture record` with several `--device`: one file per camera started together, or one
/// composed picture.
@Suite(.serialized, .tags(.realTime))
struct MultiCameraCommandTests {
    static let cameras = ["--device", "virtual-camera", "--device", "virtual-front-camera", "--no-audio", "--duration", "1s", "--quiet"]

    @Test func separateFilesStartWithinOneFrameOfEachOther() throws {
        let folder = FileFixtures.directory.appendingPathComponent("multi-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CaptureTool.run(["record", folder.path] + Self.cameras)
        #expect(result.status == 0, "\(result)")
        var offsets: [Double] = []
        for name in ["camera1.mp4", "camera2.mp4"] {
            let url = folder.appendingPathComponent(name)
            let info = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height,nb_read_frames")
            #expect(Int(info["nb_read_frames"] ?? "") == 30, "\(name): \(info)")
            let line = try #require(result.output.split(separator: "\n").first { $0.contains(name) }, "\(result)")
            let offset = try #require(line.split(separator: "+").last.flatMap { Double($0.split(separator: " ")[0]) }, "\(line)")
            offsets.append(offset)
        }
        #expect(offsets.min() == 0 && (offsets.max() ?? 1) < 1.0 / 30, "start offsets \(offsets)")
    }

    @Test(arguments: [("pip", 640, 480), ("side-by-side", 1280, 480)])
    func aComposedLayoutIsOneFileOfBothCameras(layout: String, width: Int, height: Int) throws {
        let url = FileFixtures.directory.appendingPathComponent("multi-\(layout)-\(UUID().uuidString.prefix(8)).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CaptureTool.run(["record", url.path, "--layout", layout] + Self.cameras)
        #expect(result.status == 0, "\(result)")
        let info = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height,nb_read_frames")
        #expect(info["width"] == String(width) && info["height"] == String(height), "\(info)")
        #expect(Int(info["nb_read_frames"] ?? "") == 30, "\(info)")
    }

    @Test func wrongCombinationsAreUsageErrors() throws {
        let three = try CaptureTool.run(["record", "x.mp4", "--layout", "pip", "--device", "a", "--device", "b", "--device", "c"])
        #expect(three.status == 64 && three.errors.contains("two cameras"), "\(three)")
        let preset = try CaptureTool.run(["record", "x", "--preset", "high"] + Self.cameras)
        #expect(preset.status == 64 && preset.errors.contains("--preset"), "\(preset)")
        let alone = try CaptureTool.run(["record", "x.mp4", "--layout", "pip", "--device", "virtual-camera"])
        #expect(alone.status == 64, "\(alone)")
    }
}
