import CaptureKit
import Dispatch
import Foundation
import Glibc

/// `v4l2-latency`: how old a frame from a real V4L2 driver is when the delegate gets it (its
/// kernel timestamp → the delegate call) and the CPU per delivered frame, beside ffmpeg reading
/// the same node (`ffmpeg -f v4l2 … -f null -`) in the same run.
///
/// Made for the kernel's vivid camera in the test VM (scripts/vm/bench.sh): vivid paces frames
/// in real time like a webcam. Without a V4L2 camera the benchmark reports nothing and says so.
/// The node is `CAPTUREKIT_BENCH_V4L2_NODE`, else the first of `CAPTUREKIT_VM_VIVID`, else
/// /dev/video0.
struct V4L2LatencyBenchmark: Benchmark {
    let name = "v4l2-latency"
    let summary = "V4L2 camera (vivid 640x480 yuyv422 at 25 fps): frame age at delivery and CPU per delivered frame, vs ffmpeg -f v4l2 -> null"

    static let fourCC = "YUYV"
    static let width = 640
    static let height = 480
    static let fps = 25
    static let warmUpFrames = 10
    static let peerLabel = "ffmpeg -f v4l2 -> null"

    static var node: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["CAPTUREKIT_BENCH_V4L2_NODE"]
            ?? environment["CAPTUREKIT_VM_VIVID"]?.split(separator: " ").first.map(String.init)
            ?? "/dev/video0"
    }

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let node = Self.node
        guard let camera = try Self.camera(at: node) else {
            return BenchmarkReport(name: name, summary: summary, rows: [], notes: [
                "no V4L2 camera at \(node): run scripts/vm/bench.sh to measure against vivid in the test VM",
            ])
        }
        let frames = settings.frames
        let ours = try Self.measureCaptureKit(camera, label: "CaptureKit, 1 output", frames: frames)
        let peer = V4L2FFmpegPeer(node: node, fourCC: Self.fourCC, width: Self.width, height: Self.height, fps: Self.fps)
        let cpu = try peer.cpuWindow(warmUp: Self.warmUpFrames, frames: frames)
        let peerAges = try peer.frameAges(frames: frames)

        let peerRow = Measurement(label: Self.peerLabel, tool: "ffmpeg", frames: cpu.frames, delivered: nil, dropped: nil,
                                  unaccounted: nil, wallSeconds: cpu.wallSeconds, cpuSeconds: cpu.cpuSeconds,
                                  peakRSSBytes: nil, peakRSSScope: "child", cpuRatio: nil)
        var report = BenchmarkReport(name: name, summary: summary, rows: [ours.row, peerRow], notes: [])
        report.setRatios(against: Self.peerLabel)
        report.notes = [
            "device: \(camera.localizedName) [\(camera.uniqueID)] at \(node), \(Self.fourCC) \(Self.width)x\(Self.height) at \(Self.fps) fps",
            "frame age, CaptureKit (kernel timestamp -> delegate call, CLOCK_MONOTONIC): \(ours.ages.summary)",
            "frame age, ffmpeg (kernel timestamp -> its -f framecrc line read from a pipe, \(peerAges.clock) clock): \(peerAges.ages.summary)",
            "CaptureKit: the \(frames) frames after \(Self.warmUpFrames) warm-up frames, one video data output without conversion; "
                + "CPU = this process's user+sys over that window (getrusage), per delivered frame",
            "ffmpeg: the same window (frames \(Self.warmUpFrames) to \(Self.warmUpFrames + frames) by its -progress report), "
                + "CPU from /proc/PID/stat (10 ms ticks); its frame ages come from a second run writing -f framecrc to a pipe",
        ]
        return report
    }

    /// The CaptureKit device for `node`, by the bus info v4l2-ctl reports for it; nil when the
    /// node does not exist.
    static func camera(at node: String) throws -> CaptureDevice? {
        guard FileManager.default.fileExists(atPath: node) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["v4l2-ctl", "-d", node, "-D"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Bus info") }),
              let bus = line.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) else {
            throw BenchError("v4l2-ctl -D \(node) reports no bus info (is v4l-utils installed?)")
        }
        let matches = CaptureDevice.allDevices.filter { !$0.isVirtual && $0.uniqueID.contains(bus) }
        guard matches.count == 1, let camera = matches.first else {
            throw BenchError("\(node) (\(bus)): expected one CaptureKit device, found \(matches.map(\.uniqueID))")
        }
        return camera
    }

    /// `frames` frames of `camera` in `pixelFormat` at `width`x`height` (640x480 YUYV 25 fps by
    /// default) to one data output: their ages and the CPU of this process — plus that of
    /// `daemon` (the process that reads the camera for it, such as the PipeWire daemon), over the
    /// same window.
    static func measureCaptureKit(_ camera: CaptureDevice, label: String, frames: Int, daemon: pid_t? = nil,
                                  pixelFormat: PixelFormat = .yuyv422, width: Int = Self.width, height: Int = Self.height,
                                  fps: Int = Self.fps) throws
        -> (row: Measurement, ages: V4L2FrameAges, daemonCPUSeconds: Double, lent: Int) {
        guard let format = camera.formats.first(where: { $0.pixelFormat == pixelFormat && $0.width == width && $0.height == height }) else {
            throw BenchError("\(camera) has no \(pixelFormat) \(width)x\(height)")
        }
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setActiveFormat(format)
        try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: Int32(fps)))

        let session = CaptureSession()
        session.beginConfiguration()
        try session.setSessionPreset(.inputPriority)
        try session.addInput(CaptureDeviceInput(device: camera))
        let output = CaptureVideoDataOutput()
        try session.addOutput(output)
        try session.commitConfiguration()
        let recorder = V4L2AgeRecorder(warmUp: Self.warmUpFrames, frames: frames, daemon: daemon)
        output.setSampleBufferDelegate(recorder, queue: DispatchQueue(label: "capture-bench.v4l2"))
        try session.startRunning()
        let timeout = Double(frames + Self.warmUpFrames) / Double(fps) * 3 + 30
        let finished = recorder.wait(seconds: timeout)
        let statistics = output.statistics
        try session.stopRunning()
        output.setSampleBufferDelegate(nil, queue: nil)
        let result = recorder.result
        guard finished, let start = result.start, let end = result.end else {
            throw BenchError("\(camera): \(frames) frames did not arrive within \(Int(timeout)) s")
        }
        let row = Measurement(label: label, tool: "CaptureKit", frames: result.produced,
                              delivered: result.ages.count, dropped: statistics.dropped, unaccounted: nil,
                              wallSeconds: end.wallSeconds(since: start), cpuSeconds: end.cpuSeconds(since: start) + result.daemonCPUSeconds,
                              peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil)
        return (row, result.ages, result.daemonCPUSeconds, result.lent)
    }
}
