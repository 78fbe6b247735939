import Foundation
import Glibc

/// `first-frame`: how soon a camera's first frame arrives — on the V4L2 camera at
/// ``V4L2LatencyBenchmark/node`` (vivid 640x480 YUYV at 25 fps in the test VM) when there is
/// one, else on the virtual camera (640x480 YUYV at 30 fps).
///
/// - CaptureKit, session start → first frame: `capture frames --count 1 --json`'s
///   `firstFrameMs`, from `startRunning()` to the delegate holding the frame.
/// - Cold, one frame and exit, every tool a child process from spawn to exit: `capture frames
///   --count 1` beside `ffmpeg … -frames:v 1 -f null -` and `gst-launch-1.0 … num-buffers=1 !
///   fakesink` on the same camera and format (lavfi's `testsrc2` and `videotestsrc` stand in for
///   the virtual camera, which only CaptureKit has).
///
/// Every row is the run with the median wall time of ``runs``.
struct FirstFrameBenchmark: Benchmark {
    let name = "first-frame"
    let summary = "session start -> first frame (CaptureKit) and spawn -> one frame -> exit vs ffmpeg and gst-launch, on vivid (VM) or the virtual camera"

    static let runs = 10
    static let width = 640, height = 480

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let scratch = settings.scratchDirectory
        let capture = ChildProcess.captureExecutable
        guard access(capture, X_OK) == 0 else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["no capture executable beside capture-bench (\(capture)): build it in release (scripts/bench.sh does)"])
        }
        let node = V4L2LatencyBenchmark.node
        let v4l2 = access(node, R_OK) == 0
        let fps = v4l2 ? V4L2LatencyBenchmark.fps : 30
        let size = "\(Self.width)x\(Self.height)"
        let camera = v4l2 ? "\(node) (\(size) yuyv422 at \(fps) fps)" : "the virtual camera (\(size) yuyv422 at \(fps) fps)"
        var notes = ["camera: \(camera); every row the run with the median wall time of \(Self.runs)"]

        let captureArguments = ["frames", "--device", v4l2 ? node : "virtual-camera", "--count", "1", "--size", size,
                                "--pixel-format", "yuyv422", "--fps", String(fps), "--json"]
        var cold: [(result: ChildProcess.Result, firstFrameMs: Double)] = []
        for run in 0..<Self.runs {
            let report = "\(scratch)/first-frame-\(run).json"
            defer { unlink(report) }
            let result = try ChildProcess.run(capture, captureArguments, scratchDirectory: scratch, outputPath: report)
            guard let data = FileManager.default.contents(atPath: report),
                  let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let first = json["firstFrameMs"] as? Double else {
                throw BenchError("capture frames printed no firstFrameMs")
            }
            cold.append((result, first))
        }
        let starts = cold.map(\.firstFrameMs).sorted()
        let session = starts[starts.count / 2]
        let median = cold.map(\.result).sorted { $0.wallSeconds < $1.wallSeconds }[cold.count / 2]
        var rows = [
            Measurement(label: "CaptureKit session start -> first frame", tool: "CaptureKit", frames: 1, delivered: 1, dropped: nil,
                        unaccounted: nil, wallSeconds: session / 1000, cpuSeconds: 0, peakRSSBytes: nil, peakRSSScope: "-", cpuRatio: nil),
            Measurement(label: "capture frames --count 1 (spawn -> exit)", tool: "CaptureKit", frames: 1, delivered: 1, dropped: nil,
                        unaccounted: nil, wallSeconds: median.wallSeconds, cpuSeconds: median.cpuSeconds, peakRSSBytes: median.peakRSSBytes,
                        peakRSSScope: "child", cpuRatio: nil),
        ]
        notes.append(String(format: "CaptureKit session start -> first frame: median %.1f ms, min %.1f, max %.1f over %d runs "
                            + "(one frame interval is %.1f ms)", session, starts.first!, starts.last!, starts.count, 1000 / Double(fps)))

        let peers: [(label: String, command: String, arguments: [String], package: String)] = v4l2 ? [
            ("ffmpeg -f v4l2 -frames:v 1 (spawn -> exit)", "ffmpeg",
             ["-hide_banner", "-loglevel", "error", "-f", "v4l2", "-input_format", "yuyv422", "-video_size", size, "-framerate", String(fps),
              "-i", node, "-frames:v", "1", "-f", "null", "-"], "ffmpeg"),
            ("gst-launch v4l2src num-buffers=1 (spawn -> exit)", "gst-launch-1.0",
             ["-q", "v4l2src", "device=\(node)", "num-buffers=1", "!", "video/x-raw,format=YUY2,width=\(Self.width),height=\(Self.height)",
              "!", "fakesink"], "gstreamer1.0-tools gstreamer1.0-plugins-good"),
        ] : [
            ("ffmpeg -f lavfi testsrc2 -frames:v 1 (spawn -> exit)", "ffmpeg",
             ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(fps)", "-pix_fmt", "yuyv422",
              "-frames:v", "1", "-f", "null", "-"], "ffmpeg"),
            ("gst-launch videotestsrc num-buffers=1 (spawn -> exit)", "gst-launch-1.0",
             ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,format=YUY2,width=\(Self.width),height=\(Self.height)",
              "!", "fakesink"], "gstreamer1.0-tools gstreamer1.0-plugins-base"),
        ]
        for peer in peers {
            guard let executable = ChildProcess.locate(peer.command) else {
                notes.append("\(peer.command) is not installed (apt-get install \(peer.package)): no row")
                continue
            }
            do {
                var results: [ChildProcess.Result] = []
                for _ in 0..<Self.runs { results.append(try ChildProcess.run(executable, peer.arguments, scratchDirectory: scratch)) }
                let median = results.sorted { $0.wallSeconds < $1.wallSeconds }[results.count / 2]
                rows.append(Measurement(label: peer.label, tool: peer.command, frames: 1, delivered: nil, dropped: nil, unaccounted: nil,
                                        wallSeconds: median.wallSeconds, cpuSeconds: median.cpuSeconds, peakRSSBytes: median.peakRSSBytes,
                                        peakRSSScope: "child", cpuRatio: nil))
            } catch {
                notes.append("\(peer.label): \(error); no row")
            }
        }
        for row in rows.dropFirst(2) {
            notes.append(String(format: "%@: %.1f ms, capture frames --count 1 %.1f ms (%.2fx)", row.label, row.wallSeconds * 1000,
                                median.wallSeconds * 1000, row.wallSeconds > 0 ? median.wallSeconds / row.wallSeconds : 0))
        }
        notes.append("wall s is the figure here (time to a frame); CPU is that run's user+sys")
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }
}
