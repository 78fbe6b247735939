import CaptureKit
import Dispatch

/// One CaptureKit case of the delivery benchmark: how many video data outputs the session has
/// and whether anyone listens to them.
///
/// Frames are counted by sequence number, the camera's own frame index. With nobody listening
/// there is no public way to watch frames go by, so those cases run for a fixed time and then
/// attach a listener (a new output, or a delegate on the idle one): the first frame it gets
/// tells how many the camera produced. The listener costs at most a frame or two of work.
enum DeliveryScenario: Sendable {
    /// A session with the camera and no output at all.
    case noOutputs
    /// One output with neither delegate nor stream (outputs skip queuing when nobody listens).
    case idleOutput
    /// `count` outputs, each with a counting delegate on its own queue.
    case listening(count: Int)

    var label: String {
        switch self {
        case .noOutputs: return "CaptureKit, 0 outputs"
        case .idleOutput: return "CaptureKit, 1 output, no listener"
        case .listening(let count): return "CaptureKit, \(count) output\(count == 1 ? "" : "s")"
        }
    }

    /// Runs the camera in a fresh session until it has produced at least `minimumFrames` frames
    /// and `minimumSeconds` have passed, and measures that window.
    func measure(camera: CaptureDevice, minimumFrames: Int, minimumSeconds: Double) throws -> Measurement {
        let session = CaptureSession()
        session.beginConfiguration()
        try session.setSessionPreset(.hd1920x1080)
        try session.addInput(CaptureDeviceInput(device: camera))
        let outputCount: Int
        switch self {
        case .noOutputs: outputCount = 0
        case .idleOutput: outputCount = 1
        case .listening(let count): outputCount = count
        }
        let outputs = (0..<outputCount).map { _ in CaptureVideoDataOutput() }
        for output in outputs { try session.addOutput(output) }
        try session.commitConfiguration()

        let wasReset = PeakMemory.reset()
        let before = ResourceSnapshot.now()
        let deadline = before.wallNanoseconds + Int64(minimumSeconds * 1e9)
        let watcher: SequenceWatcher
        var probe: CaptureVideoDataOutput?
        switch self {
        case .listening:
            watcher = SequenceWatcher(minimumFrames: minimumFrames, notBefore: deadline)
            for (index, output) in outputs.enumerated() {
                output.setSampleBufferDelegate(watcher, queue: DispatchQueue(label: "capture-bench.output\(index)"))
            }
            try session.startRunning()
        case .noOutputs, .idleOutput:
            watcher = SequenceWatcher(minimumFrames: 1, notBefore: 0)
            try session.startRunning()
            MediaTime.sleep(until: MediaTime(value: deadline, timescale: 1_000_000_000))
            let listener = outputs.first ?? CaptureVideoDataOutput()
            listener.setSampleBufferDelegate(watcher, queue: DispatchQueue(label: "capture-bench.probe"))
            if outputs.isEmpty {
                // Added while running: the camera's stream keeps going (same format), so its
                // frame index keeps counting from the start of the window.
                try session.addOutput(listener)
                probe = listener
            }
        }
        let timeout = minimumSeconds + 60
        guard watcher.wait(seconds: timeout) else {
            try? session.stopRunning()
            throw BenchError("\(label): no frame arrived within \(Int(timeout)) s")
        }
        let after = ResourceSnapshot.now()
        let probes = [probe].compactMap { $0 }
        let statistics = (outputs + probes).map(\.statistics)
        let peak = PeakMemory.peak(wasReset: wasReset)
        try session.stopRunning()

        let isListening: Bool
        if case .listening = self { isListening = true } else { isListening = false }
        var unaccounted: Int?
        if isListening {
            // Outputs keep handing over what was queued when the session stopped; once they are
            // idle, every frame the camera made must be either delivered or dropped on each.
            let settled = Self.settledStatistics(of: outputs)
            unaccounted = settled.map { watcher.producedFrames - $0.delivered - $0.dropped }.reduce(0, +)
        }
        for output in outputs + probes { output.setSampleBufferDelegate(nil, queue: nil) }

        return Measurement(label: label, tool: "CaptureKit", frames: watcher.producedFrames,
                           delivered: isListening ? statistics.map(\.delivered).reduce(0, +) : nil,
                           dropped: isListening ? statistics.map(\.dropped).reduce(0, +) : nil,
                           unaccounted: unaccounted,
                           wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                           peakRSSBytes: peak.bytes, peakRSSScope: peak.scope, cpuRatio: nil)
    }

    /// The outputs' statistics once they have stopped changing for 100 ms (at most 5 s).
    private static func settledStatistics(of outputs: [CaptureVideoDataOutput]) -> [SampleBufferOutput.Statistics] {
        var last = outputs.map(\.statistics)
        let giveUp = MediaTime.now.value + 5_000_000_000
        while MediaTime.now.value < giveUp {
            MediaTime.sleep(until: MediaTime.now + MediaTime(value: 100_000_000, timescale: 1_000_000_000))
            let now = outputs.map(\.statistics)
            if now == last { break }
            last = now
        }
        return last
    }
}
