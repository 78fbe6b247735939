import Foundation
import Glibc

/// ffmpeg's side of `stream-1080p`: one libx264 encode at CaptureKit's stream settings,
/// published as FLV over RTMP — alone, or through the `tee` muxer to a `.mov` as well — run as a
/// child process and measured through `wait4`.
///
/// ffmpeg writes its `-progress` to a scratch file, whose last `frame=` is the frames it
/// encoded: with no file to probe, that is what the RTMP-only row is credited with.
struct StreamPeer: StreamJob {
    let label: String
    let tool = "ffmpeg"
    let recordingPath: String?
    /// ffmpeg's arguments, after the command name.
    let arguments: [String]
    /// Where ffmpeg writes its `-progress` (removed before and after each run).
    let progressPath: String

    /// `ffmpeg -f rawvideo … -i WAV -map … -c:v libx264 -preset veryfast -tune zerolatency
    /// -b:v 2500k -maxrate 2500k -bufsize 2500k -g 60 -c:a aac -b:a 128k -flags +global_header`
    /// then `-f tee "[f=mov]OUT.mov|[f=flv]URL"` when `recordingPath` is set, `-f flv URL`
    /// otherwise. `-pix_fmt yuv420p` as CaptureKit encodes (libx264 would keep 4:2:2 from
    /// YUYV); global headers in both, so the encode is the same one.
    static func ffmpeg(inputs: RecordInputs, destination: String, recordingPath: String?, scratchDirectory: String) -> StreamPeer {
        let encode = ["-map", "0:v:0", "-map", "1:a:0", "-pix_fmt", "yuv420p",
                      "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
                      "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", String(inputs.frameRate * 2),
                      "-c:a", "aac", "-b:a", "128k", "-flags", "+global_header"]
        let output = recordingPath.map { ["-f", "tee", "[f=mov]\($0)|[f=flv]\(destination)"] } ?? ["-f", "flv", destination]
        let progressPath = "\(scratchDirectory)/stream_progress_\(recordingPath == nil ? "flv" : "tee").txt"
        return StreamPeer(
            label: recordingPath == nil ? "ffmpeg -f flv (stream only)" : "ffmpeg -f tee (.mov + flv)", recordingPath: recordingPath,
            arguments: ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-progress", progressPath,
                        "-f", "rawvideo", "-pix_fmt", "yuyv422", "-video_size", "\(inputs.width)x\(inputs.height)",
                        "-framerate", String(inputs.frameRate), "-i", inputs.rawVideoPath, "-i", inputs.wavPath]
                + encode + output,
            progressPath: progressPath)
    }

    /// The command line as it runs, for the notes.
    var commandLine: String {
        (["ffmpeg"] + arguments).map { $0.contains(where: { " |[]".contains($0) }) ? "\"\($0)\"" : $0 }.joined(separator: " ")
    }

    /// Runs ffmpeg once. The kernel hands this process's high-water mark to the child at `exec`
    /// as the floor of its `ru_maxrss`, so the heap is trimmed and the mark reset first.
    func run(scratchDirectory: String) throws -> StreamRun {
        guard let executable = ChildProcess.locate(tool) else {
            throw BenchError("\(tool) is not installed")
        }
        if let recordingPath { unlink(recordingPath) }
        unlink(progressPath)
        defer { unlink(progressPath) }
        RecordHeap.trim()
        _ = PeakMemory.reset()
        let atSpawn = PeakMemory.current()
        let result = try ChildProcess.run(executable, arguments, scratchDirectory: scratchDirectory)
        let resources = RecordRun(wallSeconds: result.wallSeconds, cpuSeconds: result.cpuSeconds, peakRSSBytes: result.peakRSSBytes,
                                  peakRSSScope: "child", droppedSamples: nil, rssAtSpawnBytes: atSpawn)
        return StreamRun(resources: resources, framesEncoded: try framesEncoded())
    }

    /// The last `frame=N` ffmpeg wrote to its progress file.
    private func framesEncoded() throws -> Int {
        guard let text = try? String(contentsOfFile: progressPath, encoding: .utf8),
              let line = text.split(whereSeparator: \.isNewline).last(where: { $0.hasPrefix("frame=") }),
              let frames = Int(line.dropFirst("frame=".count)) else {
            throw BenchError("\(label): ffmpeg wrote no progress to \(progressPath)")
        }
        return frames
    }
}
