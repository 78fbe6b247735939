import CaptureKit
import Foundation
import Glibc

/// ffmpeg's side of `multicam`: per camera one `ffmpeg INPUT … OUT.mp4 -f null -`, the input
/// the camera source gives (``MultiCamCameraSource/ffmpegInput(camera:seconds:shown:)``): on the
/// host `-re -stream_loop -1 -f rawvideo … -i LOOP.nv12`, ``MultiCamInput``'s testsrc2 frames
/// read in real time, the same NV12 pixels CaptureKit's virtual cameras show; in the VM
/// `-f v4l2 … -i /dev/videoK`, the vivid node CaptureKit's row reads. Each is encoded by libx264
/// at CaptureKit's recording settings (preset `veryfast`, CRF 23, yuv420p, a keyframe every
/// second's frames as CaptureKit's 1 s fragments make) into an `.mp4`, and the same frames go
/// to a null output standing for the data output (the frame handed on by reference, nothing
/// done with it). All N are spawned at once, each on a thread of its own that waits for it with
/// `wait4` (``ChildProcess``): the row's CPU is the children's summed, its peak RSS the sum of
/// their peaks.
struct MultiCamPeer: MultiCamJob {
    let label: String
    let tool = "ffmpeg"
    let cameras: Int
    let outputPaths: [String]
    /// Where every child's pictures come from.
    let source: any MultiCamCameraSource

    /// `cameras` children reading `source`, writing `multicam_KIND_ffmpeg_N_I.mp4` in `scratchDirectory`.
    init(cameras: Int, source: any MultiCamCameraSource, scratchDirectory: String) {
        label = "\(source.peerInput) → x264 + null ×\(cameras)"
        self.cameras = cameras
        self.source = source
        outputPaths = (0..<cameras).map { "\(scratchDirectory)/multicam_\(source.kind)_ffmpeg_\(cameras)_\($0).mp4" }
    }

    /// Camera `index`'s arguments, after the command name: `seconds` of pictures, then the input ends.
    static func arguments(source: any MultiCamCameraSource, camera index: Int, seconds: Double, outputPath: String,
                          shown: Bool = false) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
            + source.ffmpegInput(camera: index, seconds: seconds, shown: shown)
            + ["-map", "0:v", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
               "-g", String(source.frameRate), outputPath,
               "-map", "0:v", "-f", "null", "-"]
    }

    /// One child's command line as it runs, for the notes.
    static func commandLine(source: any MultiCamCameraSource, seconds: Double) -> String {
        (["ffmpeg"] + arguments(source: source, camera: 0, seconds: seconds, outputPath: "OUT.mp4", shown: true)).joined(separator: " ")
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
        let paths = outputPaths, source = source
        let start = MediaTime.now.value
        let results = ConcurrentThreads.run(cameras, name: "capture-bench ffmpeg") { index in
            try ChildProcess.run(executable, Self.arguments(source: source, camera: index, seconds: seconds, outputPath: paths[index]),
                                 scratchDirectory: scratchDirectory)
        }
        let wall = Double(MediaTime.now.value - start) / 1e9
        let children = try results.map { try $0.get() }
        return MultiCamRun(wallSeconds: wall, cpuSeconds: children.map(\.cpuSeconds).reduce(0, +),
                           peakRSSBytes: children.map(\.peakRSSBytes).reduce(0, +), peakRSSScope: "children",
                           rssAtSpawnBytes: atSpawn)
    }
}
