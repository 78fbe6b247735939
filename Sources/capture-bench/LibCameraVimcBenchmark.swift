import CaptureKit
import Foundation

/// `libcamera-vimc`: a libcamera camera (the kernel's vimc in the test VM) captured by CaptureKit
/// to one data output — CPU per delivered frame and frame age (sensor timestamp → delegate call)
/// — beside libcamera's own `cam --capture` on the same camera, format and size in the same run
/// (its CPU over the same window of frames, its frame ages as it reports them). The emulated VM
/// moves single runs a lot, so the two alternate over three rounds and each side's median
/// round is the row. Without a libcamera camera it reports nothing and says so
/// (scripts/vm/bench.sh with BENCH=libcamera-vimc loads vimc and starts udevd).
struct LibCameraVimcBenchmark: Benchmark {
    let name = "libcamera-vimc"
    let summary = "libcamera camera (vimc 636x480 rgb24): CPU per delivered frame and frame age, vs cam --capture"

    static let width = 636
    static let height = 480
    static let rounds = 3
    static let ourLabel = "CaptureKit, 1 output"
    static let peerLabel = "cam --capture"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        guard let camera = CaptureDevice.allDevices.first(where: { $0.uniqueID.hasPrefix("libcamera:") }) else {
            return BenchmarkReport(name: name, summary: summary, rows: [], notes: [
                "no libcamera camera: run BENCH=libcamera-vimc scripts/vm/bench.sh to measure against vimc in the test VM",
            ])
        }
        let frames = settings.frames
        let warmUp = V4L2LatencyBenchmark.warmUpFrames
        let cam = CamCapturePeer(camera: String(camera.uniqueID.dropFirst("libcamera:".count)),
                                 stream: "role=video,width=\(Self.width),height=\(Self.height),pixelformat=BGR888")
        var ours: [(row: Measurement, ages: V4L2FrameAges)] = []
        var theirs: [(row: Measurement, ages: V4L2FrameAges)] = []
        for _ in 0..<Self.rounds {
            let measured = try V4L2LatencyBenchmark.measureCaptureKit(camera, label: Self.ourLabel, frames: frames, pixelFormat: .rgb24,
                                                                      width: Self.width, height: Self.height, fps: 30)
            ours.append((measured.row, measured.ages))
            let window = try cam.window(warmUp: warmUp, frames: frames)
            theirs.append((Measurement(label: Self.peerLabel, tool: "cam", frames: window.frames, delivered: nil, dropped: nil, unaccounted: nil,
                                       wallSeconds: window.wallSeconds, cpuSeconds: window.cpuSeconds,
                                       peakRSSBytes: nil, peakRSSScope: "child", cpuRatio: nil), window.ages))
        }
        let cost = { (row: Measurement) in row.cpuNanosecondsPerDelivery ?? row.cpuNanosecondsPerFrame }
        let our = ours.sorted { cost($0.row) < cost($1.row) }[Self.rounds / 2]
        let their = theirs.sorted { cost($0.row) < cost($1.row) }[Self.rounds / 2]
        var report = BenchmarkReport(name: name, summary: summary, rows: [our.row, their.row], notes: [])
        report.setRatios(against: Self.peerLabel)
        let costs = { (rounds: [(row: Measurement, ages: V4L2FrameAges)]) in
            rounds.map { String(format: "%.2f", cost($0.row) / 1e6) }.joined(separator: ", ")
        }
        report.notes = [
            "device: \(camera.localizedName) [\(camera.uniqueID)], rgb24 (libcamera BGR888) \(Self.width)x\(Self.height), frames lent by reference",
            "frame age, CaptureKit (sensor timestamp -> delegate call): \(our.ages.summary)",
            "frame age, cam (buffer timestamp -> its frame line read from a pipe): \(their.ages.summary)",
            "rounds (CaptureKit then cam, \(Self.rounds) times; each side's median round is its row), CPU ms per frame: "
                + "CaptureKit \(costs(ours)); cam \(costs(theirs))",
            "both: the \(frames) frames after \(warmUp) warm-up frames; CaptureKit's CPU is this process's getrusage over them, "
                + "cam's its /proc/PID/stat (10 ms ticks) when its \(warmUp)th and \(warmUp + frames)th frame lines arrive",
        ]
        return report
    }
}
