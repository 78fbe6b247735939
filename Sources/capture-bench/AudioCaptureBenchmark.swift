import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// `audio-capture`: recording a real-time sound-server source (a private PipeWire stack's
/// 440 Hz "tonemic", through pipewire-pulse), s16 48 kHz mono, for a few seconds each:
///
/// - CaptureKit: a session with the source and a `CaptureAudioDataOutput` whose delegate
///   measures each buffer's capture-to-delegate latency (arrival on the monotonic clock minus
///   the end of the buffer's capture time, which already accounts for the server's latency).
/// - `parecord --raw` (libpulse, 10 ms latency like CaptureKit's fragments) and `pw-record`
///   (native PipeWire) on the same source, writing to /dev/null.
///
/// "frames" are audio frames; CPU per second of audio is in the notes.
struct AudioCaptureBenchmark: Benchmark {
    let name = "audio-capture"
    let summary = "sound-server capture: latency server timestamp -> delegate, CPU per second of audio, vs parecord and pw-record"

    static let seconds = 5
    static let rate = 48_000

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let missing = BenchSoundServer.tools.filter { ChildProcess.locate($0) == nil }
        guard missing.isEmpty else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["not run: \(missing.joined(separator: ", ")) missing (scripts/install-deps.sh installs them)"])
        }
        let server = try BenchSoundServer(scratchDirectory: settings.scratchDirectory)
        defer { server.stop() }
        let microphone = try waitForSource()
        var notes: [String] = []
        var rows: [Measurement] = []

        // CaptureKit first, then the peers, on the same running source.
        let (row, latencies) = try measureCaptureKit(microphone)
        rows.append(row)
        let frames = Self.seconds * Self.rate
        let peers = [
            PeerCommand(label: "parecord --raw --latency-msec=10", command: "sh",
                        arguments: ["-c", "timeout -s INT \(Self.seconds) parecord --raw -d \(BenchSoundServer.sourceName) --rate=48000 --channels=1 --format=s16le --latency-msec=10 > /dev/null; exit 0"],
                        frames: frames, package: "pulseaudio-utils"),
            PeerCommand(label: "pw-record (native PipeWire)", command: "sh",
                        arguments: ["-c", "timeout -s INT \(Self.seconds) pw-record --target \(BenchSoundServer.sourceName) --rate 48000 --channels 1 --format s16 /dev/null; exit 0"],
                        frames: frames, package: "pipewire-bin"),
        ]
        for peer in peers {
            if var measured = try peer.measure(runs: 1, scratchDirectory: settings.scratchDirectory) {
                measured.tool = peer.label.split(separator: " ").first.map(String.init) ?? peer.command
                rows.append(measured)
            }
        }
        var report = BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
        report.setRatios(against: peers[0].label)
        for row in report.rows {
            let audioSeconds = Double(row.frames) / Double(Self.rate)
            notes.append(String(format: "%@: %.2f ms CPU per second of audio", row.label, row.cpuSeconds * 1000 / audioSeconds))
        }
        let sorted = latencies.sorted()
        if !sorted.isEmpty {
            let percentile = { (p: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            notes.append(String(format: "CaptureKit latency, capture end (server-corrected timestamp + duration) -> delegate, %d buffers: "
                                + "median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", sorted.count, percentile(0.5), percentile(0.9),
                                percentile(0.99), sorted.last!))
        }
        notes.append("peers have no timestamp to compare, so latency is CaptureKit's only; their frames are their \(Self.seconds) s run at 48 kHz, "
                     + "their CPU includes sh and timeout (≈1 ms); CaptureKit's CPU is the whole process's (device thread, session, delivery)")
        report.notes = notes
        return report
    }

    /// The tone source, once the server lists it (WirePlumber links it shortly after start).
    private func waitForSource() throws -> CaptureDevice {
        let deadline = MediaTime.now.value + 10_000_000_000
        while MediaTime.now.value < deadline {
            if let device = try? CaptureDevice.soundServerSource(named: BenchSoundServer.sourceName) { return device }
            usleep(50_000)
        }
        throw BenchError("the sound server never listed \(BenchSoundServer.sourceName)")
    }

    private func measureCaptureKit(_ microphone: CaptureDevice) throws -> (Measurement, [Double]) {
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: microphone))
        let output = CaptureAudioDataOutput()
        let probe = LatencyProbe()
        output.setSampleBufferDelegate(probe, queue: DispatchQueue(label: "bench.audio"))
        try session.addOutput(output)
        try session.commitConfiguration()
        try session.startRunning()
        // Warm-up: the stream is linked and delivering before the window opens.
        guard probe.waitForFrames(Self.rate / 2, timeout: 10) else {
            try? session.stopRunning()
            throw BenchError("\(microphone.localizedName) delivered no audio within 10 s")
        }
        probe.reset()
        let before = ResourceSnapshot.now()
        let complete = probe.waitForFrames(Self.seconds * Self.rate, timeout: 3 * Self.seconds)
        let after = ResourceSnapshot.now()
        try session.stopRunning()
        guard complete else { throw BenchError("\(microphone.localizedName) stopped delivering audio") }
        let (frames, latencies) = probe.results()
        let row = Measurement(label: "CaptureKit (libpulse async, 10 ms fragments)", tool: "CaptureKit", frames: frames,
                              delivered: latencies.count, dropped: output.statistics.dropped, unaccounted: nil,
                              wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                              peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil)
        return (row, latencies)
    }
}

/// Records when each audio buffer reaches the delegate, against the end of its capture time.
private final class LatencyProbe: SampleBufferDelegate {
    private struct State {
        var frames = 0
        var latencies: [Double] = []
        var waiting: (count: Int, semaphore: DispatchSemaphore)?
    }

    private let state = Mutex(State())

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let arrival = MediaTime.now.value
        guard let captured = (sampleBuffer.presentationTimeStamp + sampleBuffer.duration).nanoseconds else { return }
        let frames = sampleBuffer.audioBuffer?.frameCount ?? 0
        let ready = state.withLock { state -> DispatchSemaphore? in
            state.frames += frames
            state.latencies.append(Double(arrival - captured) / 1e6)
            guard let waiting = state.waiting, state.frames >= waiting.count else { return nil }
            state.waiting = nil
            return waiting.semaphore
        }
        ready?.signal()
    }

    /// Waits until `count` frames have arrived since the last reset; false after `timeout` s.
    func waitForFrames(_ count: Int, timeout: Int) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let done = state.withLock { state -> Bool in
            if state.frames >= count { return true }
            state.waiting = (count, semaphore)
            return false
        }
        return done || semaphore.wait(timeout: .now() + .seconds(timeout)) == .success
    }

    func reset() { state.withLock { $0 = State() } }

    func results() -> (Int, [Double]) { state.withLock { ($0.frames, $0.latencies) } }
}
