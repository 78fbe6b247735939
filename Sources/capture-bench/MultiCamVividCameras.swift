import CaptureKit
import Foundation

/// The vivid cameras of `multicam-vivid` in the test VM: the nodes scripts/vm/run.sh lists in
/// `CAPTUREKIT_VM_VIVID` (four instances, each a webcam input), each set to YUYV at
/// `CAPTUREKIT_BENCH_MULTICAM_SIZE` (640x480 unless told) and the frame rate it offers nearest
/// to 30 fps, read by CaptureKit and by `ffmpeg -f v4l2` alike. The guest prologue has set
/// vivid's picture to still colour bars without text, the same pixels for both.
///
/// The devices are found and configured once, before any row: discovery is not what a row
/// measures, and the active format stays with the device from row to row.
final class MultiCamVividCameras: MultiCamCameraSource {
    /// The pixel format vivid's webcam input and ffmpeg's v4l2 input agree on.
    static let fourCC = "YUYV"
    /// The frame rate asked for; vivid's webcam offers up to 25 fps at 640x480, 30 at 320x180.
    static let wantedFrameRate = 30.0

    let kind = "vivid"
    let width: Int
    let height: Int
    let frameRate: Int
    var cameraLimit: Int? { nodes.count }
    let peerInput = "ffmpeg -f v4l2"
    let peerPacing = "the v4l2 input at the driver's pace; a child that falls behind takes longer than the recorded time, "
        + "and vivid drops the frames it has no free buffer for"

    /// The capture nodes, in `CAPTUREKIT_VM_VIVID`'s order.
    let nodes: [String]
    /// The CaptureKit device of each node, configured.
    private let devices: [CaptureDevice]

    /// The vivid cameras the VM harness names, configured; nil outside the VM (no
    /// `CAPTUREKIT_VM_VIVID`). Throws when a named node is not a CaptureKit camera or lacks the format.
    static func fromEnvironment() throws -> MultiCamVividCameras? {
        let environment = ProcessInfo.processInfo.environment
        let nodes = (environment["CAPTUREKIT_VM_VIVID"] ?? "").split(separator: " ").map(String.init)
        guard !nodes.isEmpty else { return nil }
        let size = (environment["CAPTUREKIT_BENCH_MULTICAM_SIZE"] ?? "640x480").split(separator: "x").compactMap { Int($0) }
        guard size.count == 2 else { throw BenchError("CAPTUREKIT_BENCH_MULTICAM_SIZE must be WIDTHxHEIGHT (640x480)") }
        return try MultiCamVividCameras(nodes: nodes, width: size[0], height: size[1])
    }

    private init(nodes: [String], width: Int, height: Int) throws {
        self.nodes = nodes
        self.width = width
        self.height = height
        var devices: [CaptureDevice] = []
        var chosen: CaptureDevice.FrameRateRange?
        for node in nodes {
            let device = try CaptureDevice.device(resolving: node, mediaType: .video)
            guard let format = device.formats.first(where: { $0.fourCC == Self.fourCC && $0.width == width && $0.height == height }) else {
                throw BenchError("\(node) has no \(Self.fourCC) \(width)x\(height); it has \(device.formats)")
            }
            // Whole rates only: ffmpeg's -framerate and the keyframe interval take an integer.
            let whole = format.videoSupportedFrameRateRanges.filter { abs($0.maxFrameRate - $0.maxFrameRate.rounded()) < 0.01 }
            guard let range = whole.min(by: { abs($0.maxFrameRate - Self.wantedFrameRate) < abs($1.maxFrameRate - Self.wantedFrameRate) }) else {
                throw BenchError("\(node): \(format) offers no whole frame rate")
            }
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            try device.setActiveFormat(format)
            try device.setActiveVideoMinFrameDuration(range.minFrameDuration)
            devices.append(device)
            chosen = range
        }
        guard let chosen else { throw BenchError("CAPTUREKIT_VM_VIVID names no node") }
        self.devices = devices
        frameRate = Int(chosen.maxFrameRate.rounded())
    }

    var notes: [String] {
        [
            "pictures: vivid's still colour bars without text (the guest prologue's osd_text_mode=2, no movement), "
                + "\(Self.fourCC) \(width)x\(height) at \(frameRate) fps (of the format's rates, the nearest to "
                + "\(Int(Self.wantedFrameRate))), read by both sides from the same nodes, one row after another",
            "CaptureKit's cameras: \(zip(nodes, devices).map { "\($0) (\($1.uniqueID))" }.joined(separator: ", ")), "
                + "found by CaptureDevice.device(resolving:) and set to \(Self.fourCC) \(width)x\(height) at \(frameRate) fps before "
                + "the first row; a row of N uses the first N",
        ]
    }

    func prepare() throws {}

    func makeCameras(_ count: Int, row: String) throws -> [CaptureDevice] {
        guard count <= devices.count else { throw BenchError("\(row): \(count) cameras asked for, \(devices.count) vivid nodes") }
        return Array(devices.prefix(count))
    }

    func release(_ cameras: [CaptureDevice]) {}

    func ffmpegInput(camera index: Int, seconds: Double, shown: Bool) -> [String] {
        ["-f", "v4l2", "-input_format", "yuyv422", "-framerate", String(frameRate), "-video_size", "\(width)x\(height)",
         "-t", String(format: "%.3f", seconds), "-i", shown ? "/dev/videoK" : nodes[index]]
    }
}
