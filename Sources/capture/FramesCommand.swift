import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// `capture frames`: captures N frames and reports rate, drops and timing.
enum FramesCommand: Command {
    static let name = "frames"
    static let summary = "capture N frames and print fps, drops and timestamp jitter"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name (see 'capture devices'), or file:PATH"),
        .value("count", "N", "frames to capture, 1...100000 (default 90)"),
        .value("size", "WxH", "frame size, e.g. 1280x720 (default: the session's .high preset)"),
        .value("fps", "N", "frame rate (default 30 when the format supports it)"),
        .value("pixel-format", "F", "device pixel format: \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))"),
        .value("output", "FILE.y4m", "also write the frames as YUV4MPEG2 (4:2:0), playable with ffplay"),
        .flag("json", "print the report as JSON"),
    ]

    static let usage = """
        usage: capture frames [--device ID] [--count N] [--size WxH] [--fps N]
                              [--pixel-format F] [--output FILE.y4m] [--json]

        Captures N frames (default 90) from the default camera, or DEVICE, through a
        CaptureVideoDataOutput and prints the frame rate (from timestamps and from arrival
        times), frames dropped, timestamp and arrival jitter, delivery latency, and how long
        after the session started the first frame arrived.

        \(CommandOption.helpText(for: options))
        """

    struct Report: Encodable {
        var device: String
        var width: Int
        var height: Int
        var pixelFormat: String
        var frames: Int
        var fps: Double
        var arrivalFPS: Double
        var dropped: Int
        var monotonic: Bool
        var timestampJitterMs: Double
        var arrivalJitterMs: Double
        var meanLatencyMs: Double
        var maxLatencyMs: Double
        /// From `startRunning()` being called to the first frame reaching the delegate.
        var firstFrameMs: Double
        var output: String?
    }

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument '\(arguments.positional[0])'") }
        let count = try arguments.integer("count", default: 90, in: 1...100_000)
        let size = try arguments.size("size")
        let fps = arguments.value("fps") == nil ? nil : try arguments.integer("fps", default: 30, in: 1...1000)
        var pixelFormat: PixelFormat?
        if let name = arguments.value("pixel-format") {
            guard let format = PixelFormat(rawValue: name) else { throw UsageError("unknown pixel format '\(name)'") }
            pixelFormat = format
        }

        let device = try DeviceLookup.find(arguments.value("device"), mediaType: .video)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        if size != nil || fps != nil || pixelFormat != nil {
            try choose(on: device, size: size, fps: fps, pixelFormat: pixelFormat)
            try session.setSessionPreset(.inputPriority)
        }
        let output = CaptureVideoDataOutput()
        var writer: Y4MWriter?
        if let path = arguments.value("output") {
            output.videoSettings = VideoTarget(pixelFormat: .yuv420p)
            writer = try Y4MWriter(path: path)
        }
        let collector = FrameCollector(limit: count, writer: writer)
        output.setSampleBufferDelegate(collector, queue: DispatchQueue(label: "capture.frames"))
        try session.addOutput(output)
        try session.commitConfiguration()

        let format = device.activeFormat
        let frameSeconds = device.activeVideoMinFrameDuration.seconds
        let started = MediaTime.now.value
        try session.startRunning()
        let deadline = DispatchTime.now() + .milliseconds(Int((Double(count) * frameSeconds * 3 + 5) * 1000))
        let finished = collector.done.wait(timeout: deadline) == .success
        try session.stopRunning()
        output.setSampleBufferDelegate(nil, queue: nil)
        if let error = collector.failure { throw error }
        guard finished else {
            throw CaptureError(.systemCallFailed, "timed out: \(collector.snapshot().arrivals.count) of \(count) frames arrived")
        }
        let report = makeReport(collector.snapshot(), device: device, format: format, dropped: output.statistics.dropped,
                                started: started, output: arguments.value("output"))
        if arguments.has("json") {
            try Console.printJSON(report)
        } else {
            Console.print("\(report.device): \(report.frames) frames \(report.width)x\(report.height) \(report.pixelFormat)")
            Console.print(String(format: "fps %.2f (timestamps), %.2f (arrival); dropped %d; timestamps %@",
                                 report.fps, report.arrivalFPS, report.dropped, report.monotonic ? "monotonic" : "NOT monotonic"))
            Console.print(String(format: "jitter %.3f ms (timestamps), %.3f ms (arrival); latency mean %.2f ms, max %.2f ms",
                                 report.timestampJitterMs, report.arrivalJitterMs, report.meanLatencyMs, report.maxLatencyMs))
            Console.print(String(format: "first frame %.1f ms after the session started", report.firstFrameMs))
            if let path = report.output { Console.print("wrote \(path)") }
        }
        return .success
    }

    /// Picks the device format matching what was asked and makes it active.
    private static func choose(on device: CaptureDevice, size: (width: Int, height: Int)?, fps: Int?, pixelFormat: PixelFormat?) throws {
        let duration = MediaTime(value: 1, timescale: Int32(fps ?? 30))
        let matching = device.formats.filter { format in
            (size == nil || (format.width == size!.width && format.height == size!.height))
                && (pixelFormat == nil || format.pixelFormat == pixelFormat)
        }
        guard let format = matching.first(where: { fps == nil || $0.supportsFrameDuration(duration) }) else {
            let wanted = [size.map { "\($0.width)x\($0.height)" }, pixelFormat?.rawValue, fps.map { "\($0) fps" }].compactMap { $0 }
            throw CaptureError(.unsupportedFormat, "\(device.localizedName) has no format \(wanted.joined(separator: " ")); 'capture formats' lists them")
        }
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        try device.setActiveFormat(format)
        if fps != nil { try device.setActiveVideoMinFrameDuration(duration) }
    }

    private static func makeReport(_ samples: FrameCollector.Samples, device: CaptureDevice, format: CaptureDevice.Format,
                                   dropped: Int, started: Int64, output: String?) -> Report {
        let pts = samples.timestamps
        let arrivals = samples.arrivals
        let ptsDeltas = zip(pts.dropFirst(), pts).map { Double($0 - $1) / 1e6 }
        let arrivalDeltas = zip(arrivals.dropFirst(), arrivals).map { Double($0 - $1) / 1e6 }
        let latencies = samples.latencies.map { Double($0) / 1e6 }
        let span = Double((pts.last ?? 0) - (pts.first ?? 0)) / 1e9
        let arrivalSpan = Double((arrivals.last ?? 0) - (arrivals.first ?? 0)) / 1e9
        return Report(device: device.localizedName, width: format.width, height: format.height,
                      pixelFormat: format.pixelFormat?.rawValue ?? "?", frames: pts.count,
                      fps: span > 0 ? Double(pts.count - 1) / span : 0,
                      arrivalFPS: arrivalSpan > 0 ? Double(arrivals.count - 1) / arrivalSpan : 0,
                      dropped: dropped, monotonic: ptsDeltas.allSatisfy { $0 > 0 },
                      timestampJitterMs: standardDeviation(ptsDeltas), arrivalJitterMs: standardDeviation(arrivalDeltas),
                      meanLatencyMs: latencies.isEmpty ? 0 : latencies.reduce(0, +) / Double(latencies.count),
                      maxLatencyMs: latencies.max() ?? 0, firstFrameMs: Double((arrivals.first ?? started) - started) / 1e6,
                      output: output)
    }

    private static func standardDeviation(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
    }
}

/// Records each frame's timestamp and arrival time (and writes it out) until it has enough.
final class FrameCollector: SampleBufferDelegate {
    struct Samples {
        var timestamps: [Int64] = []
        var arrivals: [Int64] = []
        var latencies: [Int64] = []
    }

    let done = DispatchSemaphore(value: 0)
    private let limit: Int
    private let state = Mutex<(samples: Samples, writer: Y4MWriter?, failure: CaptureError?)>((Samples(), nil, nil))

    init(limit: Int, writer: Y4MWriter?) {
        self.limit = limit
        state.withLock { $0.writer = writer }
    }

    var failure: CaptureError? { state.withLock { $0.failure } }

    func snapshot() -> Samples { state.withLock { $0.samples } }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let now = MediaTime.now.value
        let reached = state.withLock { state -> Bool in
            guard state.samples.timestamps.count < limit, state.failure == nil else { return false }
            let pts = sampleBuffer.presentationTimeStamp.convertScale(1_000_000_000).value
            let end = (sampleBuffer.presentationTimeStamp + sampleBuffer.duration).convertScale(1_000_000_000).value
            state.samples.timestamps.append(pts)
            state.samples.arrivals.append(now)
            state.samples.latencies.append(now - end)
            if let frame = sampleBuffer.pixelBuffer {
                do throws(CaptureError) { try state.writer?.write(frame) } catch { state.failure = error }
            }
            return state.samples.timestamps.count == limit || state.failure != nil
        }
        if reached { done.signal() }
    }
}
