import CaptureKit
import Foundation

/// `motion-1080p`: the motion output's CPU per 1920×1080 frame (target: at most 1 ms), side by
/// side with GStreamer's `motioncells` (OpenCV's motion detection behind gst-launch) and
/// ffmpeg's scene-change score (`select='gt(scene,…)'`) on the same frames.
///
/// The input is a loop of frames with a little noise and a grey square crossing the picture.
/// CaptureKit's figure is the difference between two runs of the same unpaced virtual camera:
/// one with the motion output listened to (every frame analysed, on the camera's thread) and
/// one without (the output ignores frames nobody listens for) — so it is what detection adds,
/// the downscale of the luma included. The peers read the same frames from a raw NV12 file.
struct MotionBenchmark: Benchmark {
    let name = "motion-1080p"
    let summary = "motion output CPU per 1080p frame (NV12 and YUYV) vs gst-launch motioncells and ffmpeg's scene score on the same frames"

    static let width = 1920, height = 1080
    static let loopFrames = 30

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let frames = max(settings.frames, Self.loopFrames)
        var rows: [Measurement] = []
        var notes: [String] = []
        for format in [PixelFormat.nv12, .yuyv422] {
            let pictures = try (0..<Self.loopFrames).map { try Self.frame($0, format: format) }
            let idle = try Self.measure(pictures, frames: frames, listening: false)
            let busy = try Self.measure(pictures, frames: frames, listening: true)
            let added = max(0, busy.cpuSeconds - idle.cpuSeconds)
            rows.append(Measurement(label: "CaptureKit motion output, \(format)", tool: "CaptureKit", frames: busy.frames,
                                    delivered: busy.analyzed, dropped: nil, unaccounted: nil, wallSeconds: busy.wallSeconds,
                                    cpuSeconds: added, peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil))
            notes.append(String(format: "%@: %.3f ms of CPU per frame for detection (%.3f ms with the camera, %.3f ms the camera alone); "
                                + "%d episodes begun over %d frames", "\(format)", added / Double(busy.frames) * 1000,
                                busy.cpuSeconds / Double(busy.frames) * 1000, idle.cpuSeconds / Double(idle.frames) * 1000,
                                busy.episodes, busy.frames))
        }
        let raw = "\(settings.scratchDirectory)/motion_1080p.nv12"
        try Self.writeRaw(frames: frames, to: raw)
        let size = "\(Self.width)x\(Self.height)"
        let peers = [
            PeerCommand(label: "gst-launch motioncells", command: "gst-launch-1.0",
                        arguments: ["-q", "filesrc", "location=\(raw)", "!", "rawvideoparse", "format=nv12", "width=\(Self.width)",
                                    "height=\(Self.height)", "framerate=30/1", "!", "videoconvert", "!", "motioncells", "!", "fakesink"],
                        frames: frames, package: "gstreamer1.0-opencv"),
            PeerCommand(label: "ffmpeg scene score", command: "ffmpeg",
                        arguments: ["-v", "error", "-f", "rawvideo", "-pix_fmt", "nv12", "-s", size, "-r", "30", "-i", raw,
                                    "-vf", "select='gt(scene,0.003)'", "-f", "null", "-"],
                        frames: frames, package: "ffmpeg"),
        ]
        for peer in peers {
            if let row = try peer.measure(runs: 3, scratchDirectory: settings.scratchDirectory) {
                rows.append(row)
            } else {
                notes.append("\(peer.command) is not installed (apt-get install \(peer.package)): no \(peer.label) row")
            }
        }
        // Ratios against the GStreamer detector, the one doing the same job.
        if let peer = rows.first(where: { $0.tool == "gst-launch-1.0" }), peer.frames > 0, peer.cpuSeconds > 0 {
            let peerPerFrame = peer.cpuSeconds / Double(peer.frames)
            for index in rows.indices where rows[index].tool == "CaptureKit" {
                rows[index].cpuRatio = rows[index].cpuSeconds / Double(rows[index].frames) / peerPerFrame
            }
        }
        notes.append("CaptureKit's rows: CPU of the run with the output listened to minus the run without, over the same frames; "
                     + "the peers' rows include reading the raw file and, for motioncells, converting every frame to RGB, which it needs")
        notes.append("ffmpeg's scene score is change detection over the whole frame, not motion detection: for scale only")
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    struct Result {
        var frames: Int
        var analyzed: Int
        var episodes: Int
        var wallSeconds: Double
        var cpuSeconds: Double
    }

    /// Runs `pictures` in a loop through an unpaced virtual camera into a motion output for
    /// `frames` frames.
    static func measure(_ pictures: [PixelBuffer], frames: Int, listening: Bool) throws -> Result {
        var configuration = VirtualCameraConfiguration(name: "Motion Bench \(pictures[0].pixelFormat) \(MediaTime.now.value)")
        configuration.sizes = [.init(width: width, height: height)]
        configuration.pixelFormats = [pictures[0].pixelFormat]
        configuration.content = .frames(pictures)
        configuration.pacing = .unpaced
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let motion = CaptureMotionOutput()
        let counter = FrameCounter(limit: frames)
        let video = CaptureVideoDataOutput()
        video.setSampleBufferDelegate(counter, queue: DispatchQueue(label: "bench.motion.frames"))
        let session = CaptureSession()
        try session.configure {
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.addOutput(motion)
            try session.addOutput(video)
        }
        let events = EventCounter()
        if listening { motion.setMotionDelegate(events, queue: DispatchQueue(label: "bench.motion")) }
        let before = ResourceSnapshot.now()
        try session.startRunning()
        counter.done.wait()
        let after = ResourceSnapshot.now()
        try session.stopRunning()
        motion.setMotionDelegate(nil, queue: nil)
        let produced = counter.count
        return Result(frames: produced, analyzed: motion.statistics.analyzedFrames, episodes: motion.statistics.episodes,
                      wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before))
    }

    /// Counts frames the camera produced (by their sequence numbers) and signals at `limit`.
    final class FrameCounter: SampleBufferDelegate, @unchecked Sendable {
        // Unchecked Sendable: its counter is touched on its delegate queue only.
        let done = DispatchSemaphore(value: 0)
        private let limit: Int
        private var first: UInt64?
        private(set) var count = 0

        init(limit: Int) { self.limit = limit }

        func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
            let first = self.first ?? sampleBuffer.sequenceNumber
            self.first = first
            let seen = Int(sampleBuffer.sequenceNumber - first) + 1
            if count < limit, seen >= limit { done.signal() }
            count = max(count, seen)
        }
    }

    /// A listener, so that the output analyses every frame (it skips frames nobody hears about).
    final class EventCounter: CaptureMotionOutputDelegate {
        func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection) {}
    }

    /// Frame `index` of the loop: a gradient with a little noise and a 160×160 square that
    /// crosses the picture once per loop.
    static func frame(_ index: Int, format: PixelFormat) throws -> PixelBuffer {
        let luma = lumaPlane(index)
        return try PixelBuffer(width: width, height: height, pixelFormat: format) { plane, bytes, stride in
            let out = bytes.bindMemory(to: UInt8.self)
            switch (format, plane) {
            case (.nv12, 0):
                for y in 0..<height { for x in 0..<width { out[y * stride + x] = luma[y * width + x] } }
            case (.nv12, _):
                bytes.initializeMemory(as: UInt8.self, repeating: 128)
            default:   // yuyv422: Y U Y V
                for y in 0..<height {
                    for x in 0..<width {
                        out[y * stride + 2 * x] = luma[y * width + x]
                        out[y * stride + 2 * x + 1] = 128
                    }
                }
            }
        }
    }

    static func lumaPlane(_ index: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: index &* 747_796_405 &+ 1)
        var luma = [UInt8](repeating: 0, count: width * height)
        let squareX = (width - 160) * index / loopFrames
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 29) - 4
                let inside = x >= squareX && x < squareX + 160 && y >= 460 && y < 620
                luma[y * width + x] = UInt8(clamping: (inside ? 200 : 40 + (x + y) / 24) + noise)
            }
        }
        return luma
    }

    /// The NV12 loop, `frames` frames, for the peers.
    static func writeRaw(frames: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError("cannot write \(path)")
        }
        defer { try? file.close() }
        let chroma = Data(repeating: 128, count: width * height / 2)
        let loop = (0..<loopFrames).map { Data(lumaPlane($0)) }
        for index in 0..<frames {
            file.write(loop[index % loopFrames])
            file.write(chroma)
        }
    }
}
