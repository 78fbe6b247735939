import CaptureKit
import Foundation

/// `network-frame-age`: how old a network camera's frame is when the application gets it — from
/// the moment the camera made it (stamped into its picture, ``StampedRTSPCamera``) to CaptureKit's
/// ``CaptureVideoDataOutput`` delegate call — beside the OpenCV way of reading the same camera
/// (libavformat and libavcodec at their defaults into raw frames: ``NetworkFrameAgePeer``), from
/// the same RTSP server (``BenchRTSPServer``) in the same run.
///
/// The headline figures are the median, p95 and max age of each reader, and CaptureKit's over
/// the peer's. Target: at most the peer's median — CaptureKit decodes as the peer does, so any
/// buffering of its own between the socket and the delegate would show here.
struct NetworkFrameAgeBenchmark: Benchmark {
    let name = "network-frame-age"
    let summary = "RTSP camera (H.264 640x480 30 fps, stamped with its clock): frame age at delivery, camera -> "
        + "CaptureVideoDataOutput delegate vs ffmpeg -> rawvideo pipe (OpenCV's way), median/p95/max"

    /// Frames left out at each run's start: those queued while the stream was probed, which
    /// arrive in a burst and measure the connection, not the steady state (1 s at 30 fps).
    static let warmUpFrames = 30

    /// Runs per reader, interleaved (the peer, then CaptureKit, twice), pooled: a burst of load
    /// from elsewhere then falls on both readers alike rather than on one.
    static let rounds = 2

    static let peerLabel = "ffmpeg -> rawvideo pipe"
    static let captureKitLabel = "CaptureKit, data output"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        guard let ffmpeg = ChildProcess.locate("ffmpeg") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg is not installed (apt-get install ffmpeg): it is the peer and the anchor client, "
                                           + "so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        guard BenchRTSPServer.isAvailable(scratchDirectory: scratch, elements: StampedRTSPCamera.elements) else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["\(BenchRTSPServer.python) cannot run GStreamer's RTSP server with appsrc and openh264enc "
                                           + "(apt-get install \(BenchRTSPServer.packages)): both readers read it, so nothing was measured"])
        }
        let server = try BenchRTSPServer(ffmpeg: ffmpeg, scratchDirectory: scratch,
                                         script: StampedRTSPCamera.script, pipeline: StampedRTSPCamera.pipeline)
        defer { server.stop() }

        let frames = settings.frames
        let peer = NetworkFrameAgePeer(ffmpeg: ffmpeg, url: server.url, warmUp: Self.warmUpFrames, frames: frames,
                                       scratchDirectory: scratch)
        let ours = NetworkFrameAgeCaptureKitCase(url: server.url, warmUp: Self.warmUpFrames, frames: frames)
        var peerAges = StampedAges(), captureKitAges = StampedAges()
        var peerRuns: [StampedAges] = [], captureKitRuns: [StampedAges] = []
        var dropped = 0
        for _ in 0..<Self.rounds {
            // A server or anchor gone is the benchmark failing, whichever reader would notice.
            try server.checkRunning()
            let theirs = try peer.run()
            peerRuns.append(theirs)
            peerAges.add(theirs)
            try server.checkRunning()
            let mine = try ours.run()
            captureKitRuns.append(mine.ages)
            captureKitAges.add(mine.ages)
            dropped += mine.dropped
        }

        let rows = [
            Measurement(label: Self.captureKitLabel, tool: "CaptureKit", frames: captureKitAges.frames, delivered: captureKitAges.ages.count,
                        dropped: dropped, unaccounted: nil, wallSeconds: captureKitAges.wallSeconds, cpuSeconds: captureKitAges.cpuSeconds,
                        peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil),
            Measurement(label: Self.peerLabel, tool: "ffmpeg", frames: peerAges.frames, delivered: peerAges.ages.count, dropped: nil,
                        unaccounted: nil, wallSeconds: peerAges.wallSeconds, cpuSeconds: peerAges.cpuSeconds,
                        peakRSSBytes: nil, peakRSSScope: "child", cpuRatio: nil),
        ]
        var report = BenchmarkReport(name: name, summary: summary, rows: rows, notes: [])
        report.setRatios(against: Self.peerLabel)
        report.notes = Self.readingNotes(server: server, peer: peer, frames: frames, captureKit: captureKitAges, peerAges: peerAges,
                                         captureKitRuns: captureKitRuns, peerRuns: peerRuns)
        return report
    }

    /// The notes that say how to read the table: the camera, both readers, how age is measured,
    /// both readers' ages, CaptureKit's over the peer's against the target, and every run's median.
    private static func readingNotes(server: BenchRTSPServer, peer: NetworkFrameAgePeer, frames: Int, captureKit: StampedAges,
                                     peerAges: StampedAges, captureKitRuns: [StampedAges], peerRuns: [StampedAges]) -> [String] {
        var notes = [
            "camera: GStreamer's RTSP server (gst-rtsp-server under \(BenchRTSPServer.python), started by this benchmark) at "
                + "rtsp://127.0.0.1:\(server.port)/cam, RTP over the RTSP connection (TCP): `\(StampedRTSPCamera.pipeline)`, fed "
                + "\(StampedRTSPCamera.fps) times a second by a Python thread that paints CLOCK_MONOTONIC (time.monotonic_ns(), "
                + "read as it makes the frame) into the picture's top as \(3 * FrameStamp.columns) black/white "
                + "\(FrameStamp.block)x\(FrameStamp.block) blocks (64 bits and a 32-bit check word); one shared media, an anchor "
                + "client (ffmpeg -c copy -f null -) connected throughout; the server's and the anchor's CPU are in no row",
            "age = the reader's CLOCK_MONOTONIC when it has the frame - the stamp read from the frame's luma (each block's centre "
                + "thresholded at mid-grey, the check word verified): generation, encoding, RTSP/TCP over loopback, the reader's "
                + "buffering and decode and its hand-over; frames whose stamp did not read are counted as undecodable, frames "
                + "handed on twice as repeated, and neither is an age",
            "CaptureKit, in this process through the library API: CaptureDevice.networkCamera(url:options:) (rtspTransport .tcp), "
                + "a CaptureSession (preset .inputPriority) with a CaptureDeviceInput and a CaptureVideoDataOutput at its defaults "
                + "(the decoded format, late frames discarded: dropped = its statistics over the whole session); the age is taken "
                + "as the delegate is called",
            "the peer, OpenCV's way (its VideoCapture reads through libavformat/libavcodec at their defaults), with ffmpeg doing "
                + "that part: `\(peer.commandLine)` into a pipe this process reads; the age is taken when a frame's last byte has "
                + "been read, as OpenCV's read() would return it",
            "measured: per run the \(frames) frames after \(warmUpFrames) warm-up frames (the connection's probe burst), "
                + "\(rounds) interleaved rounds (ffmpeg, then CaptureKit), pooled; CPU over the windows: CaptureKit's this process's "
                + "getrusage, ffmpeg's from /proc/PID/stat (10 ms ticks), start-up and probe left out of both",
            "frame age, CaptureKit (camera -> delegate call): \(captureKit.summary)",
            "frame age, ffmpeg (camera -> frame read from its pipe): \(peerAges.summary)",
        ]
        let figures: [(String, Double)] = [("median", 0.5), ("p95", 0.95), ("max", 1)]
        let ratios = figures.compactMap { label, fraction -> (String, Double)? in
            guard let mine = captureKit.ages.percentile(fraction), let theirs = peerAges.ages.percentile(fraction), theirs > 0 else { return nil }
            return (label, Double(mine) / Double(theirs))
        }
        if let median = ratios.first(where: { $0.0 == "median" })?.1 {
            let list = ratios.map { String(format: "%@ %.2fx", $0.0, $0.1) }.joined(separator: ", ")
            notes.append("age CaptureKit / ffmpeg: \(list); target median <= 1.0x: \(median <= 1 ? "met" : "NOT met")")
        }
        let medians = { (runs: [StampedAges]) in
            runs.map { $0.ages.percentile(0.5).map(V4L2FrameAges.milliseconds) ?? "-" }.joined(separator: ", ")
        }
        notes.append("median age of every run, in round order (ms): CaptureKit \(medians(captureKitRuns)); ffmpeg \(medians(peerRuns))")
        return notes
    }
}
