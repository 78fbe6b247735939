import CaptureKit
import Foundation
import Glibc

/// `pipewire-vivid`: one vivid camera captured through PipeWire (WirePlumber's V4L2 monitor
/// makes a node of it) and straight through V4L2, in the same run: CPU per delivered frame and
/// frame age at delivery, the PipeWire route as a ratio of the direct one, beside GStreamer's
/// `pipewiresrc` reading the same node.
///
/// Through PipeWire the daemon reads the camera: its CPU over the same window is counted with
/// the consumer's (CaptureKit's, or gst-launch's). Made for the test VM (scripts/vm/bench.sh
/// with BENCH=pipewire-vivid); without a V4L2 camera it reports nothing and says so.
struct PipeWireVividBenchmark: Benchmark {
    let name = "pipewire-vivid"
    let summary = "vivid 640x480 yuyv422 at 25 fps through PipeWire vs straight through V4L2: CPU per frame (daemon included) and frame age, beside gst-launch pipewiresrc"

    static let directLabel = "CaptureKit, V4L2 direct"
    static let pipeWireLabel = "CaptureKit, through PipeWire"
    static let peerLabel = "gst-launch pipewiresrc -> fakesink"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let node = V4L2LatencyBenchmark.node
        guard let direct = try V4L2LatencyBenchmark.camera(at: node) else {
            return BenchmarkReport(name: name, summary: summary, rows: [], notes: [
                "no V4L2 camera at \(node): run BENCH=pipewire-vivid scripts/vm/bench.sh to measure against vivid in the test VM",
            ])
        }
        let missing = (BenchSoundServer.tools + ["gst-launch-1.0"]).filter { ChildProcess.locate($0) == nil }
        guard missing.isEmpty else { throw BenchError("pipewire-vivid needs \(missing.joined(separator: ", ")) (scripts/install-deps.sh)") }
        let frames = settings.frames
        // Straight from the node first: once PipeWire streams it, the node is the daemon's.
        let ours = try V4L2LatencyBenchmark.measureCaptureKit(direct, label: Self.directLabel, frames: frames)

        let server = try BenchSoundServer(scratchDirectory: settings.scratchDirectory, cameras: true)
        defer { server.stop() }
        guard let daemon = server.pipeWireProcess else { throw BenchError("the PipeWire daemon is not running") }
        setenv("CAPTUREKIT_PIPEWIRE_CAMERAS", "all", 1)
        defer { unsetenv("CAPTUREKIT_PIPEWIRE_CAMERAS") }
        let camera = try Self.pipeWireCamera(of: node)
        let routed = try V4L2LatencyBenchmark.measureCaptureKit(camera, label: Self.pipeWireLabel, frames: frames, daemon: daemon)
        // GStreamer where it runs: its pipewiresrc is a peer, not the subject, so a failure is noted.
        let peer: Result<Measurement, any Error> = Result {
            try Self.measureGStreamer(nodeName: String(camera.uniqueID.dropFirst("pipewire:".count)), frames: frames,
                                      daemon: daemon, scratchDirectory: settings.scratchDirectory)
        }

        var report = BenchmarkReport(name: name, summary: summary, rows: [ours.row, routed.row] + ((try? peer.get()).map { [$0] } ?? []), notes: [])
        report.setRatios(against: Self.directLabel)
        let ageRatio = routed.ages.percentile(0.5).flatMap { routedAge in ours.ages.percentile(0.5).map { Double(routedAge) / Double(max($0, 1)) } }
        report.notes = [
            "device: \(direct.localizedName) at \(node) [\(direct.uniqueID)], through PipeWire [\(camera.uniqueID)], YUYV 640x480 at 25 fps",
            "frame age, V4L2 direct (kernel timestamp -> delegate call): \(ours.ages.summary)",
            "frame age, through PipeWire (the same kernel timestamp, from the buffer header -> delegate call): \(routed.ages.summary)"
                + (ageRatio.map { "; median \(String(format: "%.2f", $0))x direct" } ?? ""),
            "CPU ratio: each row's CPU per frame over the V4L2-direct row's; the PipeWire rows count the PipeWire daemon's CPU "
                + "(/proc/PID/stat, 10 ms ticks) over the same window as the consumer's",
            "through PipeWire, per frame: CaptureKit \(Self.milliseconds(routed.row.cpuSeconds - routed.daemonCPUSeconds, frames: routed.row.frames)) ms, "
                + "the PipeWire daemon \(Self.milliseconds(routed.daemonCPUSeconds, frames: routed.row.frames)) ms",
            "frames lent by reference (not copied): V4L2 direct \(ours.lent) of \(ours.ages.count), through PipeWire \(routed.lent) of \(routed.ages.count)",
        ]
        switch peer {
        case .success:
            report.notes.append("gst-launch: three runs each of num-buffers=\(V4L2LatencyBenchmark.warmUpFrames) and \(V4L2LatencyBenchmark.warmUpFrames + frames) "
                                + "frames; its row is the difference of the medians (start-up cancels out), its frame ages are not measured (it reports none)")
        case .failure(let error):
            report.notes.append("gst-launch pipewiresrc could not run here, so it has no row: \(error)")
        }
        return report
    }

    /// CPU seconds over `frames` frames as milliseconds per frame ("1.234").
    private static func milliseconds(_ seconds: Double, frames: Int) -> String {
        String(format: "%.3f", seconds * 1000 / Double(max(frames, 1)))
    }

    /// The `pipewire:` device WirePlumber made of `node` (its node name ends with the node's
    /// file name: `v4l2_input.…_video0`), waited for up to a minute (slow under emulation).
    private static func pipeWireCamera(of node: String) throws -> CaptureDevice {
        let suffix = "_" + URL(fileURLWithPath: node).lastPathComponent
        let deadline = MediaTime.now.value + 60_000_000_000
        while MediaTime.now.value < deadline {
            let found = CaptureDevice.allDevices.filter { $0.modelID == "pipewire-v4l2" && $0.uniqueID.hasSuffix(suffix) }
            if found.count == 1, let camera = found.first, !camera.formats.isEmpty { return camera }
            usleep(200_000)
        }
        throw BenchError("PipeWire's V4L2 monitor made no node of \(node) within 60 s")
    }

    /// The object serial of the node called `name`, from `pw-dump` (WirePlumber 0.4 finds a
    /// stream's target by serial; by name it refused a video node).
    private static func serial(ofNode name: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildProcess.locate("pw-dump") ?? "/usr/bin/pw-dump")
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let objects = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
        for object in objects {
            let properties = (object["info"] as? [String: Any])?["props"] as? [String: Any]
            if properties?["node.name"] as? String == name, let serial = properties?["object.serial"] {
                return "\(serial)"
            }
        }
        throw BenchError("pw-dump lists no node \(name)")
    }

    /// GStreamer reading the node (`pipewiresrc target-object=SERIAL`, the benchmark's format
    /// pinned by caps): the CPU and wall time of `frames` frames (and the daemon's CPU meanwhile),
    /// as the difference of two lengths of run.
    private static func measureGStreamer(nodeName: String, frames: Int, daemon: pid_t, scratchDirectory: String) throws -> Measurement {
        guard let gst = ChildProcess.locate("gst-launch-1.0") else { throw BenchError("gst-launch-1.0 is not installed") }
        let serial = try serial(ofNode: nodeName)
        func once(_ buffers: Int) throws -> (wall: Double, cpu: Double) {
            let before = V4L2FFmpegPeer.cpuSeconds(of: daemon)
            // The caps pin the format CaptureKit's rows capture, as the session pins its own.
            let result = try ChildProcess.run(gst, ["-q", "pipewiresrc", "target-object=\(serial)", "num-buffers=\(buffers)", "!",
                                                    "video/x-raw,format=YUY2,width=640,height=480,framerate=25/1", "!", "fakesink"],
                                              scratchDirectory: scratchDirectory)
            return (result.wallSeconds, result.cpuSeconds + V4L2FFmpegPeer.cpuSeconds(of: daemon) - before)
        }
        // Its start-up (WirePlumber linking the stream) varies by seconds under emulation: the
        // median of three runs of each length, so one slow start does not turn the difference.
        func run(_ buffers: Int) throws -> (wall: Double, cpu: Double) {
            let runs = try (0..<3).map { _ in try once(buffers) }
            return (runs.map(\.wall).sorted()[1], runs.map(\.cpu).sorted()[1])
        }
        let short = try run(V4L2LatencyBenchmark.warmUpFrames)
        let long = try run(V4L2LatencyBenchmark.warmUpFrames + frames)
        guard long.wall > short.wall, long.cpu > short.cpu else {
            throw BenchError("its start-up varied more than \(frames) frames take (median runs: \(short) and \(long))")
        }
        return Measurement(label: peerLabel, tool: "gst-launch-1.0", frames: frames, delivered: nil, dropped: nil, unaccounted: nil,
                           wallSeconds: long.wall - short.wall, cpuSeconds: long.cpu - short.cpu,
                           peakRSSBytes: nil, peakRSSScope: "child", cpuRatio: nil)
    }
}
