import CaptureKit
import Foundation
import Glibc

/// ffmpeg's side of `multicam`: per camera one `ffmpeg -re -stream_loop -1 -f rawvideo … -i
/// LOOP.nv12 … OUT.mp4 -f null -` — ``MultiCamInput``'s testsrc2 frames, the same NV12 pixels
/// CaptureKit's cameras show, read in real time (`-re`) at 640x480 30 fps, encoded by libx264 at
/// CaptureKit's recording settings (preset `veryfast`, CRF 23, yuv420p, a keyframe every 30
/// frames as CaptureKit's 1 s fragments make) into an `.mp4`, and the same frames to a null
/// output standing for the data output (the frame handed on by reference, nothing done with
/// it). All N are spawned at once, each on a thread of its own that waits for it with `wait4`
/// (``ChildProcess``): the row's CPU is the children's summed, its peak RSS the sum of their peaks.
struct MultiCamPeer: MultiCamJob {
    let label: String
    let tool = "ffmpeg"
    let cameras: Int
    let outputPaths: [String]
    /// The frames every child loops (from the file).
    let input: RawVideoInput

    /// `cameras` children reading `input`, writing `multicam_ffmpeg_N_I.mp4` in `scratchDirectory`.
    init(cameras: Int, input: RawVideoInput, scratchDirectory: String) {
        label = "ffmpeg -re → x264 + null ×\(cameras)"
        self.cameras = cameras
        self.input = input
        outputPaths = (0..<cameras).map { "\(scratchDirectory)/multicam_ffmpeg_\(cameras)_\($0).mp4" }
    }

    /// One child's arguments, after the command name: `seconds` of pictures, then the input ends.
    static func arguments(input: RawVideoInput, seconds: Double, outputPath: String) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
         "-re", "-stream_loop", "-1", "-f", "rawvideo", "-pix_fmt", input.pixelFormat.rawValue,
         "-video_size", "\(input.width)x\(input.height)", "-framerate", String(MultiCamBenchmark.frameRate),
         "-t", String(format: "%.3f", seconds), "-i", input.path,
         "-map", "0:v", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
         "-g", String(MultiCamBenchmark.frameRate), outputPath,
         "-map", "0:v", "-f", "null", "-"]
    }

    /// One child's command line as it runs, for the notes.
    static func commandLine(input: RawVideoInput, seconds: Double) -> String {
        let shown = RawVideoInput(path: "LOOP.nv12", frameCount: input.frameCount, width: input.width, height: input.height,
                                  pixelFormat: input.pixelFormat)
        return (["ffmpeg"] + arguments(input: shown, seconds: seconds, outputPath: "OUT.mp4")).joined(separator: " ")
    }

    /// Runs the N children at once. The kernel hands this process's high-water mark to each
    /// child at `exec` as the floor of its `ru_maxrss`, so the heap is trimmed and the mark reset
    /// first; throws the first child's failure.
    func run(seconds: Double, scratchDirectory: String) throws -> MultiCamRun {
        guard let executable = ChildProcess.locate(tool) else {
            throw BenchError("\(tool) is not installed")
        }
        outputPaths.forEach { unlink($0) }
        RecordHeap.trim()
        _ = PeakMemory.reset()
        let atSpawn = PeakMemory.current()
        let paths = outputPaths, input = input
        let start = MediaTime.now.value
        let results = ConcurrentThreads.run(cameras, name: "capture-bench ffmpeg") { index in
            try ChildProcess.run(executable, Self.arguments(input: input, seconds: seconds, outputPath: paths[index]),
                                 scratchDirectory: scratchDirectory)
        }
        let wall = Double(MediaTime.now.value - start) / 1e9
        let children = try results.map { try $0.get() }
        return MultiCamRun(wallSeconds: wall, cpuSeconds: children.map(\.cpuSeconds).reduce(0, +),
                           peakRSSBytes: children.map(\.peakRSSBytes).reduce(0, +), peakRSSScope: "children",
                           rssAtSpawnBytes: atSpawn)
    }
}
