import CaptureKit
import Foundation
import Glibc

/// ffmpeg's side of `network-record-720p`: `ffmpeg -rtsp_transport tcp -i URL -c copy -an -t D
/// OUT.mp4` once per camera, all N spawned at once, each on a thread of its own that waits for
/// it with `wait4` (``ChildProcess``): the row's CPU is the children's summed, its peak RSS the
/// sum of their peaks.
///
/// `-t D` counts from the start of the stream, and a copy starts at its first keyframe (the
/// packets before it are left out, as `-copyinkf` is not given): each file holds D seconds less
/// the wait for that keyframe.
struct NetworkRecordPeer: NetworkRecordJob {
    let label: String
    let tool = "ffmpeg"
    let cameras: Int
    let outputPaths: [String]

    /// `cameras` copies, writing `network_ffmpeg_N_I.mp4` in `scratchDirectory`.
    init(cameras: Int, scratchDirectory: String) {
        label = "ffmpeg -c copy ×\(cameras)"
        self.cameras = cameras
        outputPaths = (0..<cameras).map { "\(scratchDirectory)/network_ffmpeg_\(cameras)_\($0).mp4" }
    }

    /// One child's arguments, after the command name.
    static func arguments(url: String, seconds: Int, outputPath: String) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-an",
         "-t", String(seconds), outputPath]
    }

    /// One child's command line as it runs, for the notes.
    static func commandLine(url: String, seconds: Int) -> String {
        (["ffmpeg"] + arguments(url: url, seconds: seconds, outputPath: "OUT.mp4")).joined(separator: " ")
    }

    /// Runs the N children at once. The kernel hands this process's high-water mark to each
    /// child at `exec` as the floor of its `ru_maxrss`, so the heap is trimmed and the mark reset
    /// first; throws the first child's failure.
    func run(url: String, seconds: Int, scratchDirectory: String) throws -> NetworkRecordRun {
        guard let executable = ChildProcess.locate(tool) else {
            throw BenchError("\(tool) is not installed")
        }
        outputPaths.forEach { unlink($0) }
        RecordHeap.trim()
        _ = PeakMemory.reset()
        let atSpawn = PeakMemory.current()
        let paths = outputPaths
        let start = MediaTime.now.value
        let results = ConcurrentThreads.run(cameras, name: "capture-bench ffmpeg") { index in
            try ChildProcess.run(executable, Self.arguments(url: url, seconds: seconds, outputPath: paths[index]),
                                 scratchDirectory: scratchDirectory)
        }
        let wall = Double(MediaTime.now.value - start) / 1e9
        let children = try results.map { try $0.get() }
        return NetworkRecordRun(wallSeconds: wall, cpuSeconds: children.map(\.cpuSeconds).reduce(0, +),
                                peakRSSBytes: children.map(\.peakRSSBytes).reduce(0, +), peakRSSScope: "children",
                                rssAtSpawnBytes: atSpawn)
    }
}
