import CaptureKit
import Foundation

/// `glass-to-glass`: the latency of a live stream from the camera to a viewer's decoded
/// picture — CaptureKit's ``CaptureStreamOutput`` (``GlassCaptureKitPublisher``) beside ffmpeg
/// publishing the same paced pictures (``GlassFFmpegPublisher``), over loopback RTMP through
/// nginx-rtmp (``BenchRTMPServer``) and over SRT, to the same receiving ffmpeg
/// (``GlassReceiver``) in the same run. Every frame carries a ``FrameStamp`` that says when it
/// was captured; its latency is the moment the receiver has decoded it minus that.
///
/// The headline figures are each publisher's median, p99 and max latency per protocol, and
/// CaptureKit's over ffmpeg's. Target: a lower median and p99 than ffmpeg's — both encode with
/// the same settings, so anything CaptureKit queues between the camera and the socket shows here.
struct GlassToGlassBenchmark: Benchmark {
    let name = "glass-to-glass"
    let summary = "live stream 640x480 30 fps (x264 veryfast zerolatency 2.5 Mbit/s) over loopback RTMP (nginx-rtmp) and SRT: "
        + "capture -> frame decoded by a receiving ffmpeg, CaptureStreamOutput vs ffmpeg publishing the same paced frames, median/p99/max"

    /// Frames left out at each run's start: the receiver's probe and the wait for the first
    /// keyframe, which arrive in a burst and measure the connection, not the steady state (2 s).
    static let warmUpFrames = 60

    /// Runs per case, interleaved (every case once, then again), pooled: a burst of load from
    /// elsewhere falls on all cases alike. Each run measures `--frames` / `rounds` frames.
    static let rounds = 2

    /// One case's pooled figures over its runs.
    private struct Pooled {
        var label = ""
        var ages = StampedAges()
        var runs: [StampedAges] = []
        var incidents: [String] = []
        /// CaptureKit's own figures: frames its destination dropped, its capture-to-network
        /// latency (``StreamStatistics/latency``) and how late the data output's delegate was.
        var dropped: Int?
        var networkLatencies: [String] = []
        var lateness = V4L2FrameAges()
        var commandLine = ""
    }

    /// A case: the protocol and the publisher.
    private struct Case: Hashable {
        var transport: GlassRoute.Transport
        var tool: String
    }

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        guard let ffmpeg = ChildProcess.locate("ffmpeg") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg is not installed (apt-get install ffmpeg): it is the peer and the receiver, so nothing was measured"])
        }
        guard let nginx = BenchRTMPServer.locate() else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["nginx or its RTMP module (\(BenchRTMPServer.modulePath)) is not installed (apt-get install "
                                           + "\(BenchRTMPServer.packages)): the RTMP cases publish to it, so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        let server = try BenchRTMPServer(nginx: nginx, scratchDirectory: scratch)
        defer { server.stop() }
        let loop = try GlassFrames.loop()
        let frames = max(1, settings.frames / Self.rounds)

        // In pairs per protocol: ffmpeg, then CaptureKit.
        let cases = GlassRoute.Transport.allCases.flatMap { transport in ["ffmpeg", "CaptureKit"].map { Case(transport: transport, tool: $0) } }
        var pooled: [Case: Pooled] = [:]
        var skipped: [Case: String] = [:]
        var receiverCommand = ""
        for round in 0..<Self.rounds {
            for item in cases where skipped[item] == nil {
                let route = item.transport == .rtmp
                    ? GlassRoute.rtmp(server, streamKey: "glass\(item.tool == "ffmpeg" ? "ff" : "ck")\(round)")
                    : try GlassRoute.srt()
                do {
                    let receiver = try GlassReceiver(ffmpeg: ffmpeg, route: route, scratchDirectory: scratch)
                    defer { receiver.stop() }
                    receiverCommand = receiver.commandLine
                    let publisher: any GlassPublisher = item.tool == "ffmpeg"
                        ? try GlassFFmpegPublisher(ffmpeg: ffmpeg, route: route, scratchDirectory: scratch)
                        : try GlassCaptureKitPublisher(route: route, loop: loop)
                    let ages: StampedAges
                    do {
                        ages = try receiver.measure(warmUp: Self.warmUpFrames, frames: frames, publisher: publisher)
                    } catch {
                        _ = try? publisher.stop()
                        throw error
                    }
                    // The publisher first: the receiver still reads while it ends cleanly.
                    let incidents = try publisher.stop()
                    var entry = pooled[item] ?? Pooled()
                    entry.label = publisher.label
                    entry.ages.add(ages)
                    entry.runs.append(ages)
                    entry.incidents += incidents
                    if let ffmpegPublisher = publisher as? GlassFFmpegPublisher {
                        entry.commandLine = "ffmpeg " + ffmpegPublisher.arguments.map { $0.contains("?") ? "\"\($0)\"" : $0 }.joined(separator: " ")
                    }
                    if let ours = publisher as? GlassCaptureKitPublisher {
                        let statistics = ours.statistics.first
                        entry.dropped = (entry.dropped ?? 0) + (statistics?.framesDropped ?? 0)
                        entry.networkLatencies.append(statistics?.latency.map { String(format: "%.1f", $0.seconds * 1000) } ?? "-")
                        ours.delegateLateness.samples.forEach { entry.lateness.append($0) }
                    }
                    pooled[item] = entry
                } catch let error where item.tool == "ffmpeg" {
                    // ffmpeg failing (a build without libsrt) leaves its row out; CaptureKit
                    // failing is the benchmark failing.
                    skipped[item] = "\(error)"
                }
            }
        }

        var rows: [Measurement] = []
        for item in cases {
            guard let entry = pooled[item] else { continue }
            var row = Measurement(label: entry.label, tool: item.tool, frames: entry.ages.frames, delivered: entry.ages.ages.count,
                                  dropped: entry.dropped, unaccounted: nil, wallSeconds: entry.ages.wallSeconds,
                                  cpuSeconds: entry.ages.cpuSeconds, peakRSSBytes: nil,
                                  peakRSSScope: item.tool == "ffmpeg" ? "child" : "process", cpuRatio: nil)
            if let peer = pooled[Case(transport: item.transport, tool: "ffmpeg")], peer.ages.cpuSeconds > 0, peer.ages.frames > 0 {
                row.cpuRatio = (row.cpuSeconds / Double(max(1, row.frames))) / (peer.ages.cpuSeconds / Double(peer.ages.frames))
            }
            rows.append(row)
        }
        var notes = Self.methodNotes(server: server, frames: frames, receiver: receiverCommand, pooled: pooled)
        for (item, reason) in skipped.sorted(by: { $0.key.transport.rawValue < $1.key.transport.rawValue }) {
            notes.append("ffmpeg over \(item.transport.rawValue): skipped, \(reason)")
        }
        for transport in GlassRoute.Transport.allCases {
            notes += Self.figureNotes(transport: transport, ours: pooled[Case(transport: transport, tool: "CaptureKit")],
                                      theirs: pooled[Case(transport: transport, tool: "ffmpeg")])
        }
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// How the row was measured: the pictures, both publishers, the receiver, the clock.
    private static func methodNotes(server: BenchRTMPServer, frames: Int, receiver: String, pooled: [Case: Pooled]) -> [String] {
        var notes = [
            "pictures: CaptureKit's TestPattern 640x480 yuv420p (moving bars, a bouncing box), a loop of \(GlassFrames.loopLength), "
                + "30 fps in real time, with a stamp over the top-left corner (\(3 * FrameStamp.columns) black/white "
                + "\(FrameStamp.block)x\(FrameStamp.block) blocks: 64 bits and a check word); both publishers send the same pictures",
            "CaptureKit, in this process through the library API: a virtual camera looping the pictures (each stamped with its loop "
                + "position), a CaptureSession (.inputPriority) and a CaptureStreamOutput at its defaults (libx264 veryfast, zerolatency, "
                + "2.5 Mbit/s with a 1 s buffer, a keyframe every 2 s); capture time = the frame's deadline on the camera's grid "
                + "(timestamp + duration, CLOCK_MONOTONIC: when the virtual camera hands it on), learnt by a CaptureVideoDataOutput "
                + "beside the stream output from the first frame's timestamp and stamp",
            "ffmpeg, a child fed by a thread of this process that writes each picture raw into its stdin on 30 fps deadlines, "
                + "stamped with CLOCK_MONOTONIC as it is written (capture time = that stamp)",
            "receiver, the same for every case: `\(receiver)` into a pipe this process reads; latency = CLOCK_MONOTONIC when a "
                + "frame's last byte has been read - its capture time; frames whose stamp did not read are counted as undecodable, "
                + "frames handed on twice as repeated, neither is a latency",
            "routes: RTMP = FLV to nginx-rtmp on 127.0.0.1:\(server.port) (application live, started by this benchmark), the "
                + "receiver playing the same stream key; SRT = MPEG-TS straight to the receiver listening on a loopback UDP port "
                + "(mode=listener), the publisher calling (mode=caller), libsrt's default 120 ms latency on both ends",
            "measured: per run \(frames) frames after \(warmUpFrames) warm-up frames (the receiver's probe and first keyframe), "
                + "\(rounds) interleaved rounds (per protocol ffmpeg then CaptureKit), pooled; CPU over the windows: CaptureKit's is "
                + "this process's getrusage (the receiver's reading thread included), ffmpeg's from /proc/PID/stat (10 ms ticks); "
                + "nginx's and the receiver's CPU are in no row; CPU ratio against ffmpeg on the same protocol",
        ]
        for transport in GlassRoute.Transport.allCases {
            if let command = pooled[Case(transport: transport, tool: "ffmpeg")]?.commandLine, !command.isEmpty {
                notes.append("ffmpeg's command over \(transport.rawValue): \(command)")
            }
        }
        return notes
    }

    /// Both publishers' figures on one protocol, CaptureKit's over ffmpeg's against the target,
    /// every run's median, and what CaptureKit's stream output reported.
    private static func figureNotes(transport: GlassRoute.Transport, ours: Pooled?, theirs: Pooled?) -> [String] {
        let name = transport.rawValue
        var notes: [String] = []
        if let ours { notes.append("\(name) glass-to-glass, CaptureKit: \(figures(ours.ages))") }
        if let theirs { notes.append("\(name) glass-to-glass, ffmpeg: \(figures(theirs.ages))") }
        if let ours, let theirs {
            let ratios = [("median", 0.5), ("p99", 0.99), ("max", 1.0)].compactMap { label, fraction -> (String, Double)? in
                guard let mine = ours.ages.ages.percentile(fraction), let peer = theirs.ages.ages.percentile(fraction), peer > 0 else { return nil }
                return (label, Double(mine) / Double(peer))
            }
            let list = ratios.map { String(format: "%@ %.2fx", $0.0, $0.1) }.joined(separator: ", ")
            let met = ratios.filter { $0.0 != "max" }.allSatisfy { $0.1 < 1 } && ratios.count == 3
            notes.append("\(name) latency CaptureKit / ffmpeg: \(list); target median and p99 < 1.0x: \(met ? "met" : "NOT met")")
            let medians = { (runs: [StampedAges]) in
                runs.map { $0.ages.percentile(0.5).map(V4L2FrameAges.milliseconds) ?? "-" }.joined(separator: ", ")
            }
            notes.append("\(name) median of every run, in round order (ms): CaptureKit \(medians(ours.runs)); ffmpeg \(medians(theirs.runs))")
        }
        if let ours {
            var line = "\(name) CaptureKit stream output: frames dropped \(ours.dropped ?? 0), StreamStatistics.latency (capture -> "
                + "network hand-off) at each run's end \(ours.networkLatencies.joined(separator: ", ")) ms"
            if let median = ours.lateness.percentile(0.5), let maximum = ours.lateness.percentile(1) {
                line += "; data output delegate called \(V4L2FrameAges.milliseconds(median)) ms (max \(V4L2FrameAges.milliseconds(maximum)) ms) "
                    + "after a frame's deadline (the capture time's check)"
            }
            if !ours.incidents.isEmpty { line += "; events: " + ours.incidents.joined(separator: "; ") }
            notes.append(line)
        }
        return notes
    }

    /// "median 80.1 ms, p99 95.3 ms, max 101.0 ms over 300 frames (0 undecodable, 0 repeated)".
    private static func figures(_ ages: StampedAges) -> String {
        guard let median = ages.ages.percentile(0.5), let p99 = ages.ages.percentile(0.99), let maximum = ages.ages.percentile(1) else {
            return "no frame with a readable stamp (\(ages.undecodable) undecodable, \(ages.repeated) repeated)"
        }
        return "median \(V4L2FrameAges.milliseconds(median)) ms, p99 \(V4L2FrameAges.milliseconds(p99)) ms, "
            + "max \(V4L2FrameAges.milliseconds(maximum)) ms over \(ages.ages.count) frames "
            + "(\(ages.undecodable) undecodable, \(ages.repeated) repeated)"
    }
}
