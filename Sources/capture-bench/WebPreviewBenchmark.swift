import CaptureKit
import CaptureKitPreview
import Foundation

/// `web-preview`: what the web preview costs per frame with 1 and 10 viewers, beside the
/// session alone and beside `ffmpeg -c:v mjpeg` encoding the same frames.
///
/// A real-time 1280x720 YUYV virtual camera at 30 fps feeds a ``CaptureWebPreview``; viewers are
/// `curl` processes reading the MJPEG stream as fast as they can, so their socket reading is not
/// in the figure, only what CaptureKit does (one JPEG per frame, copies into each connection).
/// CPU per frame is this process's user + system time over the frames the session delivered.
/// Target (issue 8): 10 viewers cost little more than 1 — every frame is encoded once.
struct WebPreviewBenchmark: Benchmark {
    let name = "web-preview"
    let summary = "web preview CPU per frame at 720p30 with 0, 1 and 10 viewers vs ffmpeg mjpeg encode of the same frames"

    static let width = 1280
    static let height = 720
    static let ffmpegLabel = "ffmpeg -c:v mjpeg -q:v 5 (encode only)"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let scratch = settings.scratchDirectory
        let frames = max(60, min(settings.frames, 150))
        var rows: [Measurement] = []
        var notes = ["viewers are curl processes outside this process: their reading is not counted",
                     "CaptureKit rows include the virtual camera drawing its test pattern (see the 0-viewer row)"]

        let input = try RawVideoInput.write(count: 1, width: Self.width, height: Self.height, pixelFormat: .yuyv422,
                                            path: "\(scratch)/web_720p.yuyv")
        defer { input.remove() }
        let ffmpeg = PeerCommand(
            label: Self.ffmpegLabel, command: "ffmpeg",
            arguments: ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-stream_loop", String(frames - 1),
                        "-f", "rawvideo", "-pix_fmt", "yuyv422", "-video_size", "\(Self.width)x\(Self.height)", "-framerate", "30",
                        "-i", input.path, "-c:v", "mjpeg", "-q:v", "5", "-f", "null", "-"],
            frames: frames, package: "ffmpeg")
        if let row = try ffmpeg.measure(runs: 3, scratchDirectory: scratch) { rows.append(row) } else {
            notes.append("ffmpeg is not installed: no ratios")
        }
        guard let curl = ChildProcess.locate("curl") else {
            throw BenchError("curl is not installed (apt-get install curl): the web preview needs viewers")
        }
        for viewers in [0, 1, 10] {
            rows.append(try measure(viewers: viewers, frames: frames, curl: curl))
        }
        var report = BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
        report.setRatios(against: Self.ffmpegLabel)
        return report
    }

    private func measure(viewers: Int, frames: Int, curl: String) throws -> Measurement {
        var configuration = VirtualCameraConfiguration(name: "Bench Web Camera \(viewers)")
        configuration.sizes = [.init(width: Self.width, height: Self.height)]
        configuration.pixelFormats = [.yuyv422]
        configuration.frameRates = [30]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.commitConfiguration()
        let preview = try CaptureWebPreview(session: session)
        defer { preview.stop() }
        try session.startRunning()
        defer { try? session.stopRunning() }
        let url = "http://127.0.0.1:\(preview.port)/stream.mjpg?token=\(preview.accessToken)"
        let clients = try (0..<viewers).map { _ -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-s", "-o", "/dev/null", url]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        defer {
            for client in clients {
                kill(client.processIdentifier, SIGKILL)
                client.waitUntilExit()
            }
        }
        // Settle: every viewer connected and a second of frames behind us.
        let settle = Date(timeIntervalSinceNow: 10)
        while preview.statistics.viewers < viewers || preview.statistics.framesReceived < 30, Date() < settle {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let before = ResourceSnapshot.now()
        let start = preview.statistics
        while preview.statistics.framesReceived - start.framesReceived < frames {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let after = ResourceSnapshot.now()
        let end = preview.statistics
        let received = end.framesReceived - start.framesReceived
        return Measurement(label: "CaptureKit web preview, \(viewers) viewer\(viewers == 1 ? "" : "s") (\(end.viewers) connected)",
                           tool: "CaptureKit", frames: received, delivered: end.framesEncoded - start.framesEncoded,
                           dropped: end.droppedFrames - start.droppedFrames, unaccounted: nil,
                           wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                           peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil)
    }
}
