import CaptureKit
import Foundation
import Glibc

/// `network-record-720p`: recording N network cameras at once — RTSP, H.264 1280x720 at
/// 30 fps — to MP4 as the camera sent them (no decode, no encode), CaptureKit's sessions beside
/// `ffmpeg -rtsp_transport tcp -i URL -c copy -an -t D OUT.mp4` ×N, for N = 1, 4 and 16, from
/// the same private RTSP server (``BenchRTSPServer``) in the same run. One more row, CaptureKit
/// ×1 with a data output too, shows what decoding the camera's frames costs.
///
/// The headline figure is CPU per camera-second: CPU seconds / (N × ``recordedSeconds``).
/// Target: at most ffmpeg's for every N — with only a pass-through recording nothing looks at
/// the pixels, so CaptureKit decodes nothing, as `-c copy` does not.
struct NetworkRecordBenchmark: Benchmark {
    let name = "network-record-720p"
    let summary = "record 1, 4, 16 RTSP cameras (H.264 1280x720 30 fps) to .mp4 as sent, no decode/encode: "
        + "CaptureKit vs ffmpeg -c copy ×N, CPU per camera-second"

    /// D, the seconds each camera is recorded: ffmpeg's `-t`, CaptureKit's time between
    /// `startRecording` and `finishRecording`. Long enough that the start-up every row pays
    /// (connecting, probing, the wait for the first keyframe: up to 2 s) does not make the
    /// figure; short enough that both rounds of every row take about 4 minutes.
    static let recordedSeconds = 10

    /// The camera counts, each an ffmpeg row and a CaptureKit row.
    static let cameraCounts = [1, 4, 16]

    /// Runs per row, in interleaved rounds (every row once, then again), so a burst of load from
    /// elsewhere hits all rows alike. The run with the lower CPU is reported: of two runs a
    /// median is not defined better, and the lower is the one other work disturbed less.
    static let rounds = 2

    /// A row's reported run and the table row made from it.
    private typealias Chosen = (job: any NetworkRecordJob, run: NetworkRecordRun, row: Measurement)

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        // ffmpeg is the peer and the anchor client, ffprobe counts what the recordings hold.
        guard let ffmpeg = ChildProcess.locate("ffmpeg"), let ffprobe = ChildProcess.locate("ffprobe") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg/ffprobe are not installed (apt-get install ffmpeg): ffmpeg is the peer and ffprobe "
                                           + "counts the packets recorded, so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        guard BenchRTSPServer.isAvailable(scratchDirectory: scratch) else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["\(BenchRTSPServer.python) cannot run GStreamer's RTSP server with openh264enc (apt-get install "
                                           + "\(BenchRTSPServer.packages)): every row records from it, so nothing was measured"])
        }
        let server = try BenchRTSPServer(ffmpeg: ffmpeg, scratchDirectory: scratch)
        defer { server.stop() }

        // In pairs: each CaptureKit row after the ffmpeg row of the same N; the decoding row last.
        var jobs: [any NetworkRecordJob] = []
        for cameras in Self.cameraCounts {
            jobs.append(NetworkRecordPeer(cameras: cameras, scratchDirectory: scratch))
            jobs.append(NetworkRecordCaptureKitCase(cameras: cameras, decoding: false, scratchDirectory: scratch))
        }
        jobs.append(NetworkRecordCaptureKitCase(cameras: 1, decoding: true, scratchDirectory: scratch))

        var runs = [[NetworkRecordRun]](repeating: [], count: jobs.count)
        var skipped: [Int: String] = [:]
        for _ in 0..<Self.rounds {
            for (index, job) in jobs.enumerated() where skipped[index] == nil {
                defer { job.outputPaths.forEach { unlink($0) } }
                // A server or anchor gone is the benchmark failing, whichever row would notice.
                try server.checkRunning()
                do {
                    var run = try job.run(url: server.url, seconds: Self.recordedSeconds, scratchDirectory: scratch)
                    try Self.count(job, into: &run, ffprobe: ffprobe)
                    runs[index].append(run)
                } catch let error where job.tool != "CaptureKit" {
                    // ffmpeg failing leaves its row out; CaptureKit failing is the benchmark failing.
                    skipped[index] = "\(error)"
                }
            }
        }

        var notes: [String] = []
        for (index, reason) in skipped.sorted(by: { $0.key < $1.key }) {
            notes.append("\(jobs[index].label): skipped, \(reason)")
        }
        var chosen: [Chosen] = []
        for (index, job) in jobs.enumerated() where skipped[index] == nil {
            guard let run = runs[index].min(by: { $0.cpuSeconds < $1.cpuSeconds }) else { continue }
            let row = Measurement(label: job.label, tool: job.tool, frames: run.videoPackets, delivered: run.delivered,
                                  dropped: run.dropped, unaccounted: nil, wallSeconds: run.wallSeconds, cpuSeconds: run.cpuSeconds,
                                  peakRSSBytes: run.peakRSSBytes, peakRSSScope: run.peakRSSScope, cpuRatio: nil)
            chosen.append((job, run, row))
        }
        // The ratio is of CPU per camera-second, against the ffmpeg row of the same N.
        var rows: [Measurement] = []
        for entry in chosen {
            var row = entry.row
            if let reference = Self.reference(for: entry.job, in: chosen), reference.row.cpuSeconds > 0 {
                row.cpuRatio = Self.cpuPerCameraSecond(entry) / Self.cpuPerCameraSecond(reference)
            }
            rows.append(row)
        }

        notes += Self.readingNotes(server: server, chosen: chosen, allRuns: zip(jobs, runs).map { ($0, $1) })
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// Counts the video packets and bytes of every file of the run; throws for a file without a
    /// video packet (for CaptureKit the benchmark fails, for ffmpeg its row is left out).
    private static func count(_ job: any NetworkRecordJob, into run: inout NetworkRecordRun, ffprobe: String) throws {
        for path in job.outputPaths {
            let packets = try RecordProbe.count(path, ffprobe: ffprobe).video
            guard packets > 0 else { throw BenchError("\(job.label): \(path) holds no video packet") }
            run.videoPackets += packets
            var status = stat()
            if stat(path, &status) == 0 { run.bytes += Int(status.st_size) }
        }
    }

    /// CPU milliseconds per camera-second: CPU / (N × D).
    private static func cpuPerCameraSecond(_ entry: Chosen) -> Double {
        entry.run.cpuSeconds * 1e3 / Double(entry.job.cameras * recordedSeconds)
    }

    /// The ffmpeg row a row is compared to: the one with as many cameras.
    private static func reference(for job: any NetworkRecordJob, in chosen: [Chosen]) -> Chosen? {
        chosen.first { $0.job.tool == "ffmpeg" && $0.job.cameras == job.cameras }
    }

    /// The notes that say how to read the table: the camera, both sides' commands, how it was
    /// measured, the ratios per N against the target, what decoding adds, and every run's figure.
    private static func readingNotes(server: BenchRTSPServer, chosen: [Chosen],
                                     allRuns: [(any NetworkRecordJob, [NetworkRecordRun])]) -> [String] {
        var camera = "camera: GStreamer's RTSP server (gst-rtsp-server under \(BenchRTSPServer.python), started by this benchmark) at "
            + "rtsp://127.0.0.1:\(server.port)/cam, RTP over the RTSP connection (TCP): `\(BenchRTSPServer.pipeline)`, one shared "
            + "media (one encode for every client); an anchor client (ffmpeg -c copy -f null -) stays connected from the start to "
            + "the end, so the media is never torn down between rows; the server's and the anchor's CPU are in no row"
        if let single = chosen.first(where: { $0.job.tool == "ffmpeg" && $0.job.cameras == 1 })?.run, single.videoPackets > 0 {
            // The files are at 30 fps: the packets say how long they play.
            let kilobits = Double(single.bytes) * 8 / 1e3 / (Double(single.videoPackets) / 30)
            camera += String(format: "; the stream as ffmpeg stored it: %.0f kbit/s (a ball on black compresses well)", kilobits)
        }
        let seconds = recordedSeconds
        var notes = [
            camera,
            "ffmpeg's command, N at once, each child waited for by wait4 on a thread of its own: "
                + NetworkRecordPeer.commandLine(url: server.url, seconds: seconds),
            "CaptureKit, in this process through the library API, per camera a thread of its own: "
                + "CaptureDevice.networkCamera(url:options:) (rtspTransport .tcp), a CaptureSession (preset .inputPriority) with a "
                + "CaptureDeviceInput and a CaptureMovieFileOutput at its default settings (the camera's H.264 stored as sent — "
                + "passesVideoThrough(for:) checked true for every camera —, a fragment every 1 s, made an ordinary .mp4 at the end), "
                + "startRecording(to:) before startRunning(), \(seconds) s, await finishRecording(), stopRunning(); the decoding row "
                + "adds a CaptureVideoDataOutput whose delegate does nothing (delivered / dropped are its statistics), so every frame "
                + "is decoded",
            "measured: of \(rounds) interleaved rounds, the run with the lower CPU; CaptureKit's CPU is this process's getrusage "
                + "from before the first device is made to after the last file is finished, so it includes each camera's two "
                + "connections (the device's probe, then the session's stream), as ffmpeg's includes its process start-up and "
                + "probe; ffmpeg's is the N children's own wait4 rusage, summed; wall = first start to last end",
            "frames = video packets in all of the row's files (ffprobe -count_packets); each file holds \(seconds) s less the wait for "
                + "the first keyframe (gop 60: up to 2 s): ffmpeg's -t counts from the stream's start and its copy begins at a "
                + "keyframe, CaptureKit's file begins at the first keyframe after startRecording; CPU per camera-second = CPU / "
                + "(N × \(seconds) s); CPU ratio = that / the ffmpeg row's of the same N (the decoding row: ffmpeg ×1), lower is "
                + "better; CPU ns/frame is per packet stored",
        ]

        for entry in chosen where entry.job.tool == "CaptureKit" {
            guard let reference = Self.reference(for: entry.job, in: chosen), reference.row.cpuSeconds > 0 else { continue }
            let mine = Self.cpuPerCameraSecond(entry), theirs = Self.cpuPerCameraSecond(reference)
            let ratio = mine / theirs
            var line = String(format: "%@ / %@: CPU per camera-second %.2fx (%.1f vs %.1f ms)", entry.row.label, reference.row.label,
                              ratio, mine, theirs)
            if reference.row.cpuNanosecondsPerFrame > 0 {
                line += String(format: ", per packet %.2fx (%d vs %d packets)",
                               entry.row.cpuNanosecondsPerFrame / reference.row.cpuNanosecondsPerFrame, entry.row.frames, reference.row.frames)
            }
            if let ours = entry.row.peakRSSMiB, let peer = reference.row.peakRSSMiB, peer > 0 {
                // ffmpeg's sum carries this process's size once per child (the last note).
                line += String(format: ", peak RSS %.0f vs %.0f MiB (ffmpeg's with %d spawn floors)", ours, peer, reference.job.cameras)
            }
            if (entry.job as? NetworkRecordCaptureKitCase)?.decoding == true {
                line += " (decoding: no target)"
            } else {
                line += "; target <= 1.0x: \(ratio <= 1 ? "met" : "NOT met")"
            }
            notes.append(line)
        }

        // What decoding adds: the decoding row against the row that only stores, one camera each.
        let single = chosen.filter { $0.job.tool == "CaptureKit" && $0.job.cameras == 1 }
        if let decoding = single.first(where: { ($0.job as? NetworkRecordCaptureKitCase)?.decoding == true }),
           let storing = single.first(where: { ($0.job as? NetworkRecordCaptureKitCase)?.decoding == false }) {
            let extra = Self.cpuPerCameraSecond(decoding) - Self.cpuPerCameraSecond(storing)
            notes.append(String(format: "what decoding costs: %.1f ms per camera-second decoding every frame (%d delivered to the data "
                                + "output) vs %.1f ms storing only, %+.1f ms (%.1fx)", Self.cpuPerCameraSecond(decoding),
                                decoding.run.delivered ?? 0, Self.cpuPerCameraSecond(storing), extra,
                                Self.cpuPerCameraSecond(decoding) / max(1e-9, Self.cpuPerCameraSecond(storing))))
        }

        // Every run, so the spread says how much of a difference is noise.
        let spreads = allRuns.compactMap { job, runs -> String? in
            guard !runs.isEmpty else { return nil }
            let figures = runs.map { String(format: "%.1f", $0.cpuSeconds * 1e3 / Double(job.cameras * seconds)) }
            return "\(job.label) \(figures.joined(separator: ", "))"
        }
        if !spreads.isEmpty {
            notes.append("CPU per camera-second of every run, in round order (ms): " + spreads.joined(separator: "; "))
        }
        let spawnFloor = allRuns.flatMap { $0.1.compactMap(\.rssAtSpawnBytes) }.max() ?? 0
        notes.append(String(format: "peak RSS: CaptureKit's is this process's VmHWM over the row (its baseline included, the heap "
                            + "trimmed before); ffmpeg's is the sum of the children's ru_maxrss, each of which counts this process's "
                            + "resident size at spawn as a floor (at most %.0f MiB here)", Double(spawnFloor) / 1_048_576))
        return notes
    }
}
