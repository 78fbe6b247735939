import CaptureKit
import Foundation

/// `libcamera-vimc`: a libcamera camera (the kernel's vimc in the test VM) captured by CaptureKit
/// to one data output — CPU per delivered frame and frame age (sensor timestamp → delegate call)
/// — beside libcamera's own `cam --capture` on the same camera, format and size in the same run.
/// Without a libcamera camera it reports nothing and says so (scripts/vm/bench.sh with
/// BENCH=libcamera-vimc loads vimc and starts udevd).
struct LibCameraVimcBenchmark: Benchmark {
    let name = "libcamera-vimc"
    let summary = "libcamera camera (vimc 636x480 rgb24): CPU per delivered frame and frame age, vs cam --capture"

    static let width = 636
    static let height = 480
    static let ourLabel = "CaptureKit, 1 output"
    static let peerLabel = "cam --capture"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        guard let camera = CaptureDevice.allDevices.first(where: { $0.uniqueID.hasPrefix("libcamera:") }) else {
            return BenchmarkReport(name: name, summary: summary, rows: [], notes: [
                "no libcamera camera: run BENCH=libcamera-vimc scripts/vm/bench.sh to measure against vimc in the test VM",
            ])
        }
        guard let cam = ChildProcess.locate("cam") else { throw BenchError("libcamera-vimc needs cam (libcamera-tools, scripts/install-deps.sh)") }
        let frames = settings.frames
        let ours = try V4L2LatencyBenchmark.measureCaptureKit(camera, label: Self.ourLabel, frames: frames, pixelFormat: .rgb24,
                                                              width: Self.width, height: Self.height, fps: 30)
        // cam's row is the difference of two runs, so its start-up (the camera manager, the IPA
        // module, buffer allocation) cancels out as CaptureKit's warm-up is left out.
        func run(_ count: Int) throws -> ChildProcess.Result {
            try ChildProcess.run(cam, ["-c", "1", "--capture=\(count)", "-s", "role=video,width=\(Self.width),height=\(Self.height),pixelformat=BGR888"],
                                 scratchDirectory: settings.scratchDirectory)
        }
        let short = try run(V4L2LatencyBenchmark.warmUpFrames)
        let long = try run(V4L2LatencyBenchmark.warmUpFrames + frames)
        let peer = Measurement(label: Self.peerLabel, tool: "cam", frames: frames, delivered: nil, dropped: nil, unaccounted: nil,
                               wallSeconds: long.wallSeconds - short.wallSeconds, cpuSeconds: long.cpuSeconds - short.cpuSeconds,
                               peakRSSBytes: nil, peakRSSScope: "child", cpuRatio: nil)
        var report = BenchmarkReport(name: name, summary: summary, rows: [ours.row, peer], notes: [])
        report.setRatios(against: Self.peerLabel)
        report.notes = [
            "device: \(camera.localizedName) [\(camera.uniqueID)], rgb24 (libcamera BGR888) \(Self.width)x\(Self.height), frames lent by reference",
            "frame age, CaptureKit (sensor timestamp -> delegate call): \(ours.ages.summary); cam reports no frame ages",
            "cam: two runs of --capture=\(V4L2LatencyBenchmark.warmUpFrames) and \(V4L2LatencyBenchmark.warmUpFrames + frames); its row is the difference "
                + "(start-up cancels out); CaptureKit's CPU is this process's getrusage over the measured frames",
        ]
        return report
    }
}
