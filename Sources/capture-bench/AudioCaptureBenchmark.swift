import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// `audio-capture`: recording a real-time sound-server source (a private PipeWire stack's
/// 440 Hz "tonemic", through pipewire-pulse), s16 48 kHz mono, for a few seconds each:
///
/// - CaptureKit: a session with the source and a `CaptureAudioDataOutput` whose delegate
///   measures each buffer's capture-to-delegate latency (arrival on the monotonic clock minus
///   the end of the buffer's capture time, which already accounts for the server's latency) —
///   on both routes: PipeWire's own stream (the default on this server) and libpulse's
///   (`CAPTUREKIT_SOUND_SERVER_ROUTE=pulse`), about 10 ms per buffer on each.
/// - `parecord --raw` (libpulse, 10 ms latency like CaptureKit's fragments) and `pw-record`
///   (native PipeWire; at its default 100 ms latency and at CaptureKit's 10 ms) on the same
///   source, writing to /dev/null.
///
/// Three interleaved rounds, each row its median run by CPU. Around each run it also reads the
/// daemons' CPU (a pulse client's audio passes through pipewire-pulse, whose work the client's
/// own figure leaves out) and, once per round, the daemons' with no one recording.
/// "frames" are audio frames; CPU per second of audio, the client's and with the server's, is
/// in the notes, with the CPU of CaptureKit's threads by name.
struct AudioCaptureBenchmark: Benchmark {
    let name = "audio-capture"
    let summary = "sound-server capture on both routes: latency server timestamp -> delegate, CPU per second of audio (client; client + sound server), vs parecord and pw-record"

    static let seconds = 5
    static let rounds = 3
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

        let frames = Self.seconds * Self.rate
        let peers = [
            PeerCommand(label: "parecord --raw --latency-msec=10", command: "sh",
                        arguments: ["-c", "timeout -s INT \(Self.seconds) parecord --raw -d \(BenchSoundServer.sourceName) --rate=48000 --channels=1 --format=s16le --latency-msec=10 > /dev/null; exit 0"],
                        frames: frames, package: "pulseaudio-utils"),
            PeerCommand(label: "pw-record (native PipeWire)", command: "sh",
                        arguments: ["-c", "timeout -s INT \(Self.seconds) pw-record --target \(BenchSoundServer.sourceName) --rate 48000 --channels 1 --format s16 /dev/null; exit 0"],
                        frames: frames, package: "pipewire-bin"),
            PeerCommand(label: "pw-record --latency 10ms", command: "sh",
                        arguments: ["-c", "timeout -s INT \(Self.seconds) pw-record --target \(BenchSoundServer.sourceName) --latency 10ms --rate 48000 --channels 1 --format s16 /dev/null; exit 0"],
                        frames: frames, package: "pipewire-bin"),
        ]
        // Every case once per round, CaptureKit's two routes first, then the peers, on the same
        // running source, so a burst of load from elsewhere hits all rows alike; each row is its
        // median run by CPU.
        let routes = [("CaptureKit (PipeWire stream, 10.7 ms buffers)", nil), ("CaptureKit (libpulse route, 10 ms fragments)", "pulse")]
        var runs: [String: [AudioRun]] = [:]
        var idle: [Double] = []
        // The daemons' CPU (PipeWire, WirePlumber, pipewire-pulse) while `body` runs, in seconds.
        func serverCPU<R>(_ body: () throws -> R) rethrows -> (R, Double) {
            let before = server.cpuNanoseconds
            let result = try body()
            return (result, Double(server.cpuNanoseconds - before) / 1e9)
        }
        for _ in 0..<Self.rounds {
            // The server with the tone source alone, recorded by no one.
            idle.append(serverCPU { usleep(UInt32(Self.seconds) * 1_000_000) }.1 / Double(Self.seconds))
            for (label, route) in routes {
                if let route { setenv("CAPTUREKIT_SOUND_SERVER_ROUTE", route, 1) } else { unsetenv("CAPTUREKIT_SOUND_SERVER_ROUTE") }
                defer { unsetenv("CAPTUREKIT_SOUND_SERVER_ROUTE") }
                runs[label, default: []].append(try measureCaptureKit(microphone, label: label, server: server))
            }
            for peer in peers {
                let (measured, share) = try serverCPU { try peer.measure(runs: 1, scratchDirectory: settings.scratchDirectory) }
                if var measured {
                    measured.tool = peer.label.split(separator: " ").first.map(String.init) ?? peer.command
                    runs[peer.label, default: []].append(AudioRun(row: measured, latencies: [], threads: [], serverSeconds: share))
                }
            }
        }
        let medians = (routes.map(\.0) + peers.map(\.label)).compactMap { label -> AudioRun? in
            guard let all = runs[label], !all.isEmpty else { return nil }
            return all.sorted { $0.row.cpuSeconds < $1.row.cpuSeconds }[all.count / 2]
        }
        var report = BenchmarkReport(name: name, summary: summary, rows: medians.map(\.row), notes: notes)
        report.setRatios(against: peers[0].label)
        let idleServer = idle.sorted()[idle.count / 2]
        for run in medians {
            let audioSeconds = Double(run.row.frames) / Double(Self.rate)
            let client = run.row.cpuSeconds * 1000 / audioSeconds, server = run.serverSeconds * 1000 / audioSeconds
            notes.append(String(format: "%@: %.2f ms CPU per second of audio; with the sound server's CPU meanwhile %.2f ms (%.2f ms more than "
                                + "the server alone with the tone source, %.2f ms)", run.row.label, client, client + server,
                                client + server - idleServer * 1000, idleServer * 1000))
        }
        for run in medians where run.row.tool == "CaptureKit" {
            let row = run.row, sorted = run.latencies.sorted()
            guard let last = sorted.last else { continue }
            let percentile = { (p: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            notes.append(String(format: "%@ latency, capture end (server-corrected timestamp + duration) -> delegate, %d buffers: "
                                + "median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", row.label, sorted.count, percentile(0.5), percentile(0.9),
                                percentile(0.99), last))
            let seconds = Double(row.frames) / Double(Self.rate)
            notes.append("\(row.label) CPU by thread, ms per second of audio: "
                         + run.threads.map { String(format: "%@ %.2f", $0.name, Double($0.nanoseconds) / 1e6 / seconds) }.joined(separator: ", "))
        }
        notes.append("each row: the median by CPU of \(Self.rounds) interleaved runs")
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

    /// One run of a case: its row and, for CaptureKit, each buffer's latency and where its CPU went by thread.
    private struct AudioRun {
        var row: Measurement
        var latencies: [Double]
        var threads: [(name: String, nanoseconds: Int64)]
        /// The sound server's daemons' CPU during the run (the window CaptureKit's row measures,
        /// a peer's whole run).
        var serverSeconds = 0.0
    }

    private func measureCaptureKit(_ microphone: CaptureDevice, label: String, server: BenchSoundServer) throws -> AudioRun {
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
        let before = ResourceSnapshot.now(), threadsBefore = ThreadTimes.now(), serverBefore = server.cpuNanoseconds
        let complete = probe.waitForFrames(Self.seconds * Self.rate, timeout: 3 * Self.seconds)
        let after = ResourceSnapshot.now(), threadsAfter = ThreadTimes.now(), serverAfter = server.cpuNanoseconds
        try session.stopRunning()
        guard complete else { throw BenchError("\(microphone.localizedName) stopped delivering audio") }
        let (frames, latencies) = probe.results()
        let row = Measurement(label: label, tool: "CaptureKit", frames: frames,
                              delivered: latencies.count, dropped: output.statistics.dropped, unaccounted: nil,
                              wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                              peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil)
        return AudioRun(row: row, latencies: latencies, threads: threadsAfter.spent(since: threadsBefore),
                        serverSeconds: Double(serverAfter - serverBefore) / 1e9)
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
