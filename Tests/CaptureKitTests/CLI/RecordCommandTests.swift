import Foundation
import Testing

/// `capture record`'s encoding options, checked in the file by ffprobe.
@Suite(.serialized, .tags(.realTime))
struct RecordCommandTests {
    /// `--keyframe-interval` sets x264's keyframe interval: half a second (15 frames at 30 fps)
    /// between keyframes in a 2 s recording without fragments, where the default without
    /// fragments is 2 s (one keyframe). Counted in frames, not seconds, so frames a loaded
    /// machine drops do not stretch the gaps; x264 may add a keyframe at a scene cut, never
    /// leave a longer gap.
    @Test func theKeyframeIntervalIsTheOneAskedFor() throws {
        let url = FileFixtures.directory.appendingPathComponent("keyint-\(UUID().uuidString.prefix(8)).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CaptureTool.run(["record", url.path, "--device", "virtual-camera", "--no-audio", "--duration", "2s",
                                          "--fragment", "0", "--keyframe-interval", "500ms", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                                    "-of", "csv=p=0", url.path])
        let flags = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let keyframes = flags.indices.filter { flags[$0].hasPrefix("K") }
        let gaps = zip(keyframes.dropFirst(), keyframes).map { $0 - $1 }
        #expect(flags.count > 15 && keyframes.first == 0, "\(flags.count) frames, keyframes at \(keyframes)")
        #expect(keyframes.count >= 2 && gaps.allSatisfy { $0 <= 15 }, "\(flags.count) frames, keyframes at \(keyframes)")
    }

    @Test func aKeyframeIntervalThatIsNoDurationIsAUsageError() throws {
        let result = try CaptureTool.run(["record", "x.mp4", "--keyframe-interval", "often"])
        #expect(result.status == 64 && result.errors.contains("--keyframe-interval"), "\(result)")
        let several = try CaptureTool.run(["record", "x", "--keyframe-interval", "1s", "--device", "virtual-camera",
                                           "--device", "virtual-front-camera"])
        #expect(several.status == 64 && several.errors.contains("--keyframe-interval"), "\(several)")
    }
}
