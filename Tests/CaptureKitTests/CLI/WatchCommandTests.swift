import Foundation
import Testing
@testable import CaptureKit

/// `capture watch` as a user runs it, on file footage made by ffmpeg (a grey scene with a white
/// box shown from 1.5 s to 2.5 s), read unpaced: clips are checked with ffprobe and ffmpeg.
@Suite(.excludable, .serialized, .tags(.childProcess))
struct WatchCommandTests {
    /// 5 s of 320x240 at 30 fps; the box at (200, 100), 60x40, from 1.5 s to 2.5 s.
    static func footage(box: Bool) throws -> URL {
        try FileFixtures.file(box ? "watch-box.mp4" : "watch-still.mp4") { path in
            var arguments = ["-f", "lavfi", "-i", "color=c=0x606060:s=320x240:r=30:d=5,format=yuv420p"]
            if box { arguments += ["-vf", "drawbox=x=200:y=100:w=60:h=40:color=white:t=fill:enable='between(t,1.5,2.5)'"] }
            try FileFixtures.ffmpeg(arguments + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30"], to: path)
        }
    }

    private func folder() throws -> URL {
        let url = FileFixtures.directory.appendingPathComponent("watch-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aClipIsRecordedWhenSomethingMovesAndStartsWhileItMoves() throws {
        let input = try Self.footage(box: true)
        let clips = try folder().appendingPathComponent("clips")   // made by the command
        let result = try CaptureTool.run(["watch", clips.path, "--motion", "--device", "file:\(input.path)", "--no-audio",
                                          "--unpaced", "--post", "0.5s", "--json"])
        #expect(result.status == 0, "\(result)")
        let reports = try result.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(reports.count == 1, "\(result.output)")
        let box = try #require(reports[0]["boxes"] as? [[Double]]).first ?? []
        let drawn = [200.0 / 320, 100.0 / 240, 60.0 / 320, 40.0 / 240]
        #expect(box.count == 4 && zip(box, drawn).allSatisfy { abs($0 - $1) < 0.02 }, "box \(box), drawn at \(drawn)")
        let file = try #require(reports[0]["file"] as? String)
        let files = try FileManager.default.contentsOfDirectory(atPath: clips.path)
        #expect(files == [URL(fileURLWithPath: file).lastPathComponent], "\(files)")

        // What ffprobe and ffmpeg find in the clip: H.264 frames, as many as the report says,
        // and the first one shows the box (the clip starts after it appeared, while it shows).
        let probe = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                                        "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", file]),
                           as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let frames = reports[0]["frames"] as? Int ?? -1
        #expect(probe == "h264,\(frames)", "ffprobe: \(probe), report: \(frames) frames")
        #expect(frames >= 30, "the box was shown for 30 frames; the clip has \(frames)")
        let first = try FileFixtures.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(first.count == 320 * 240)
        #expect(first[120 * 320 + 230] > 200, "the clip's first frame does not show the box (grey \(first[120 * 320 + 230]))")
    }

    /// With --pre the clip comes from the pre-roll ring: it starts on a keyframe before the box
    /// appeared (its first frame shows no box) and still holds the box.
    @Test func withAPreRollTheClipStartsBeforeTheMotion() throws {
        let input = try Self.footage(box: true)
        let clips = try folder()
        let result = try CaptureTool.run(["watch", clips.path, "--motion", "--device", "file:\(input.path)", "--no-audio",
                                          "--unpaced", "--pre", "1s", "--post", "0.5s", "--json"])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n")
        try #require(lines.count == 1, "\(result.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let file = try #require(report["file"] as? String)
        let keys = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame",
                                                                       "-of", "csv=p=0", file]), as: UTF8.self).split(separator: "\n")
        #expect(keys.first?.hasPrefix("1") == true, "the clip's first frame is no keyframe")
        // The box shows from frame 45 (1.5 s) for 30 frames: the clip holds a second before it.
        #expect(keys.count >= 30 + 30 && keys.count == report["frames"] as? Int, "\(keys.count) frames, report \(report)")
        let first = try FileFixtures.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(first.count == 320 * 240)
        #expect(first[120 * 320 + 230] < 150, "the clip's first frame already shows the box")
    }

    /// `--sound`: a movie silent but for a tone from 3 s, its picture and sound played as fast as
    /// the encoder goes, gives one clip, its reason `sound`, from a second before the tone —
    /// with `--library`, saved into the library.
    @Test func loudSoundRecordsAClip() throws {
        let input = try FileFixtures.file("watch-beep-at-3s.mp4") { path in
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=0x606060:s=160x120:r=30:d=6,format=yuv420p",
                                     "-f", "lavfi", "-i", "aevalsrc='if(between(t\\,3\\,3.6)\\,0.5*sin(2*PI*880*t)\\,0)':s=48000:c=mono:d=6",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"], to: path)
        }
        let clips = try folder()
        let root = LibraryFixtures.root("watch-sound")
        let result = try CaptureTool.run(["watch", clips.path, "--sound", "-30dB", "--device", "file:\(input.path)",
                                          "--audio-device", "file:\(input.path)", "--unpaced", "--pre", "1s", "--post", "0.5s", "--json",
                                          "--library", "--root", root.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n")
        try #require(lines.count == 1, "\(result.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(report["reason"] as? String == "sound", "\(report)")
        #expect((report["duration"] as? Double ?? 0) >= 1.5, "\(report)")
        // The clip went into the library; its thumbnail stayed in the folder.
        let videos = try MediaLibrary(root: root).assets(kind: .video)
        #expect(videos.count == 1 && videos.first?.fileURL.path == report["file"] as? String, "\(videos), \(report)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: clips.path).filter { $0.hasSuffix(".jpg") }.count == 1)
        let bad = try CaptureTool.run(["watch", clips.path, "--sound", "loud"])
        #expect(bad.status == 64 && bad.errors.contains("--sound"), "\(bad)")
    }

    /// `--web` as a user runs it, on the footage played in real time (12 s, the box from 1.5 s
    /// to 2.5 s): the printed page's timeline shows the clip once it is finished, serves the
    /// very file the folder holds, and the command still ends with the footage.
    @Test(.tags(.childProcess), .enabled(if: PreviewPrerequisites.runnable(["curl"])))
    func theWebPageShowsEachFinishedClipAndServesIt() throws {
        let input = try FileFixtures.file("watch-box-12s.mp4") { path in
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=0x606060:s=160x120:r=30:d=12,format=yuv420p",
                                     "-vf", "drawbox=x=100:y=50:w=30:h=20:color=white:t=fill:enable='between(t,1.5,2.5)'",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-g", "30"], to: path)
        }
        let clips = try folder()
        let executable = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["watch", clips.path, "--motion", "--web", "--device", "file:\(input.path)", "--no-audio", "--post", "0.5s"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let page = try PrintedWebPage(readingFirstLineOf: output)
        let token = page.token, base = page.base
        let scratch = try PhotoScratch()

        // The page polls its status; so does this test, as long as the footage plays.
        var clip: [String: Any]?
        for _ in 0..<100 where clip == nil && process.isRunning {
            let status = try PhotoTools.run("curl", ["-s", "-f", "\(base)/status.json?token=\(token)"], in: scratch)
            let timeline = (try JSONSerialization.jsonObject(with: status) as? [String: Any])?["timeline"] as? [[String: Any]] ?? []
            clip = timeline.first { $0["kind"] as? String == "clip" && $0["state"] as? String == "finished" }
            if clip == nil { _ = ended.wait(timeout: .now() + .milliseconds(100)) }
        }
        let found = try #require(clip, "no finished clip on the timeline while the footage played")
        #expect(found["title"] as? String == "motion", "\(found)")
        let served = try PhotoTools.run("curl", ["-s", "-f", "\(base)/\(try #require(found["clip"] as? String))?token=\(token)"], in: scratch)
        let files = try FileManager.default.contentsOfDirectory(atPath: clips.path).filter { $0.hasSuffix(".mov") }
        try #require(files.count == 1, "\(files)")
        #expect(served == (try Data(contentsOf: clips.appendingPathComponent(files[0]))), "the page served another file than the folder's clip")

        #expect(ended.wait(timeout: .now() + .seconds(60)) == .success, "watch did not end with its footage")
        #expect(process.terminationStatus == 0)
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains(files[0]), "no line for the clip: \(rest)")
    }

    @Test func aStillSceneRecordsNothing() throws {
        let input = try Self.footage(box: false)
        let clips = try folder()
        let result = try CaptureTool.run(["watch", clips.path, "--motion", "--device", "file:\(input.path)", "--no-audio", "--unpaced"])
        #expect(result.status == 1, "\(result)")
        let files = try FileManager.default.contentsOfDirectory(atPath: clips.path)
        #expect(result.output.isEmpty && files.isEmpty, "\(result), files \(files)")
    }

    @Test func anIgnoredRegionOverTheBoxRecordsNothing() throws {
        let input = try Self.footage(box: true)
        let clips = try folder()
        let result = try CaptureTool.run(["watch", clips.path, "--motion", "--device", "file:\(input.path)", "--no-audio", "--unpaced",
                                          "--ignore", "0.55,0.35,0.35,0.3"])
        #expect(result.status == 1, "\(result)")
        let files = try FileManager.default.contentsOfDirectory(atPath: clips.path)
        #expect(files.isEmpty, "\(files)")
    }

    @Test(arguments: [["watch", "out"], ["watch", "out", "--motion", "--pre", "soon"], ["watch", "out", "--motion", "--ignore", "1,2,3"]])
    func whatIsNotSupportedOrMalformedIsAOneLineUsageError(_ arguments: [String]) throws {
        let result = try CaptureTool.run(arguments, in: try folder())
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
    }
}
