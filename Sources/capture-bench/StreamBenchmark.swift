import CaptureKit
import Foundation
import Glibc

/// `stream-1080p`: recording and streaming the same 1080p30 source at once — CaptureKit's
/// ``CaptureStreamOutput`` (one encode for its RTMP destination and its recording) fed by
/// unpaced file devices, beside `ffmpeg … -f tee "[f=mov]OUT.mov|[f=flv]rtmp://…"` on the same
/// input in the same run, both publishing to the same private nginx-rtmp server
/// (``BenchRTMPServer``). A CaptureKit row without the recording and an ffmpeg row with FLV only
/// show what the recording adds to each.
///
/// Every row encodes at the stream output's settings: libx264 veryfast, tune zerolatency, a
/// constant 2.5 Mbit/s with a 2.5 Mbit buffer (VBV = bit rate), a keyframe every 2 s, yuv420p;
/// AAC 128 kbit/s.
///
/// Target: CPU per frame at most ffmpeg's (CaptureKit encodes once for both).
struct StreamBenchmark: Benchmark {
    let name = "stream-1080p"
    let summary = "record + stream 1080p30 raw yuyv422 + WAV to .mov and RTMP (nginx-rtmp), unpaced: CaptureKit (one encode) vs ffmpeg -f tee (x264 veryfast zerolatency 2.5 Mbit/s CBR)"

    /// Runs per row; the median by CPU is reported. Rounds are interleaved (every row once,
    /// then again), so a burst of load from elsewhere hits all rows alike.
    static let runs = 3

    /// The stream key every row publishes to. Not "bench": CaptureKit redacts a stream key
    /// wherever it appears in its messages, and the scratch folder's name has that word.
    static let streamKey = "stream1080p"

    /// A row's median run and the table row made from it.
    private typealias Median = (job: any StreamJob, run: StreamRun, row: Measurement)

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        // ffmpeg makes the inputs and ffprobe counts what the recordings hold: without them
        // nothing here can be measured fairly.
        guard let ffmpeg = ChildProcess.locate("ffmpeg"), let ffprobe = ChildProcess.locate("ffprobe") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg/ffprobe are not installed (apt-get install ffmpeg): they make the inputs and count "
                                           + "the frames recorded, so nothing was measured"])
        }
        guard let nginx = BenchRTMPServer.locate() else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["nginx or its RTMP module (\(BenchRTMPServer.modulePath)) is not installed (apt-get install "
                                           + "\(BenchRTMPServer.packages)): every row publishes to it, so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        let inputs = try RecordInputs.make(frames: settings.frames, directory: scratch, ffmpeg: ffmpeg)
        defer { inputs.remove() }
        let server = try BenchRTMPServer(nginx: nginx, scratchDirectory: scratch)
        defer { server.stop() }
        let destination = server.url(streamKey: Self.streamKey)

        // In pairs: each CaptureKit row after the ffmpeg row it is compared to.
        let jobs: [any StreamJob] = [
            StreamPeer.ffmpeg(inputs: inputs, destination: destination, recordingPath: "\(scratch)/stream_out_ffmpeg.mov",
                              scratchDirectory: scratch),
            StreamCaptureKitCase.recordAndStream(inputs: inputs, destination: destination,
                                                 recordingPath: "\(scratch)/stream_out_capturekit.mov"),
            StreamPeer.ffmpeg(inputs: inputs, destination: destination, recordingPath: nil, scratchDirectory: scratch),
            StreamCaptureKitCase.streamOnly(inputs: inputs, destination: destination),
        ]

        var notes: [String] = []
        var runs = [[StreamRun]](repeating: [], count: jobs.count)
        var skipped: [Int: String] = [:]
        for _ in 0..<Self.runs {
            for (index, job) in jobs.enumerated() where skipped[index] == nil {
                defer { if let path = job.recordingPath { unlink(path) } }
                do {
                    var run = try job.run(scratchDirectory: scratch)
                    if let path = job.recordingPath { run.resources.counts = try RecordProbe.count(path, ffprobe: ffprobe) }
                    if job.tool == "CaptureKit" { try Self.check(run, of: job, inputs: inputs) }
                    runs[index].append(run)
                } catch let error where job.tool != "CaptureKit" {
                    // ffmpeg failing (a build without libx264 or the tee muxer) leaves its row
                    // out; CaptureKit failing is the benchmark failing.
                    skipped[index] = "\(error)"
                }
            }
        }
        for (index, reason) in skipped.sorted(by: { $0.key < $1.key }) {
            notes.append("\(jobs[index].label): skipped, \(reason)")
        }

        var medians: [Median] = []
        for (index, job) in jobs.enumerated() where skipped[index] == nil && !runs[index].isEmpty {
            let median = runs[index].sorted { $0.resources.cpuSeconds < $1.resources.cpuSeconds }[runs[index].count / 2]
            let resources = median.resources
            // A recording row is credited with the frames its file holds, a stream-only row
            // with the frames it encoded.
            let frames = job.recordingPath == nil ? median.framesEncoded : resources.counts.video
            let statistics = median.destinations.first
            let row = Measurement(label: job.label, tool: job.tool, frames: frames, delivered: statistics?.framesSent,
                                  dropped: statistics?.framesDropped, unaccounted: nil,
                                  wallSeconds: resources.wallSeconds, cpuSeconds: resources.cpuSeconds,
                                  peakRSSBytes: resources.peakRSSBytes, peakRSSScope: resources.peakRSSScope, cpuRatio: nil)
            medians.append((job, median, row))
        }
        // Each row's CPU ratio is against the ffmpeg row that records too, or does not.
        var rows: [Measurement] = []
        for entry in medians {
            var row = entry.row
            if let reference = Self.reference(for: entry.job, in: medians), reference.cpuNanosecondsPerFrame > 0 {
                row.cpuRatio = row.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            }
            rows.append(row)
        }

        notes += Self.readingNotes(inputs: inputs, server: server, jobs: jobs, medians: medians,
                                   allRuns: zip(jobs, runs).map { ($0, $1) })
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// Fails a CaptureKit run that lost a frame: the encode and the recording must have every
    /// one, whatever the network did (drops on the way to the server are reported, not failed).
    private static func check(_ run: StreamRun, of job: any StreamJob, inputs: RecordInputs) throws {
        guard run.framesEncoded == inputs.frames else {
            throw BenchError("\(job.label): \(run.framesEncoded) video frames encoded (expected \(inputs.frames))")
        }
        if job.recordingPath != nil, run.resources.counts.video != inputs.frames || run.resources.counts.audio == 0 {
            throw BenchError("\(job.label): the recording has \(run.resources.counts.video) video frames (expected \(inputs.frames)) "
                             + "and \(run.resources.counts.audio) audio packets (expected some)")
        }
        guard run.destinations.count == 1 else {
            throw BenchError("\(job.label): statistics for \(run.destinations.count) destinations (expected 1)")
        }
    }

    /// The ffmpeg row a row is compared to: the one that records too, or the one that does not.
    private static func reference(for job: any StreamJob, in medians: [Median]) -> Measurement? {
        medians.first { $0.job.tool == "ffmpeg" && ($0.job.recordingPath == nil) == (job.recordingPath == nil) }?.row
    }

    /// The notes that say how to read the table: the input and the settings, how it was
    /// measured, the ratios against the targets, what the recording adds, and what the
    /// destination got in every run.
    private static func readingNotes(inputs: RecordInputs, server: BenchRTMPServer, jobs: [any StreamJob], medians: [Median],
                                     allRuns: [(any StreamJob, [StreamRun])]) -> [String] {
        let rawMiB = Double(inputs.width * inputs.height * 2 * inputs.frames) / 1_048_576
        var notes = [
            String(format: "input: %d frames of testsrc2 1920x1080 at 30 fps as yuyv422 (%.0f MiB raw) and a 440 Hz 48 kHz stereo s16 "
                   + "WAV of the same length (record-1080p's); ffmpeg reads the raw file, CaptureKit the same bytes wrapped in NUT, "
                   + "through unpaced file devices", inputs.frames, rawMiB),
            "equal settings, one encode per row: libx264 preset veryfast tune zerolatency (no B-frames, no lookahead), 2.5 Mbit/s with "
                + "maxrate = bufsize = 2.5 Mbit (VBV = bit rate), a keyframe every 60 frames (2 s), yuv420p, global headers; AAC "
                + "128 kbit/s; published as FLV over RTMP to nginx on 127.0.0.1:\(server.port) (libnginx-mod-rtmp, application live, "
                + "live on, no player), started by this benchmark; CaptureKit's recording is "
                + "written in fragments (every 1/8 s) and made an ordinary .mov when it ends (measured), ffmpeg's tee writes an ordinary .mov",
            "measured: median by CPU of \(runs) runs per row, rounds interleaved; CaptureKit in this process through the library "
                + "API (getrusage over the whole job: opening the files, session, encoding, connecting, sending, closing the movie, "
                + "until the destination and the recording reported their end; no process start-up), ffmpeg as a child process "
                + "(wait4 rusage, start-up included: ~0.1 s); nginx's own CPU is in no row",
            "frames = video packets in the .mov (ffprobe -count_packets) for a row that records, frames encoded for one that only "
                + "streams (CaptureStreamOutput.encodedVideoFrameCount, ffmpeg's -progress); delivered / dropped = the RTMP "
                + "destination's StreamStatistics.framesSent / framesDropped (CaptureKit); CPU ratio = CPU per frame / that of the "
                + "ffmpeg row that records too, or does not (lower is better); frames/s is wall clock on a shared machine, CPU per "
                + "frame is the steadier figure",
        ]
        if let peer = jobs.first(where: { $0.recordingPath != nil }) as? StreamPeer {
            notes.append("ffmpeg's command: \(peer.commandLine)")
        }

        for entry in medians where entry.job.tool == "CaptureKit" {
            guard let reference = Self.reference(for: entry.job, in: medians),
                  reference.framesPerSecond > 0, reference.cpuNanosecondsPerFrame > 0 else { continue }
            let row = entry.row
            let speed = row.framesPerSecond / reference.framesPerSecond
            let cpu = row.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            var line = String(format: "%@ / %@: CPU per frame %.2fx (%.2f vs %.2f ms), throughput %.2fx (%.1f vs %.1f frames/s)",
                              row.label, reference.label, cpu, row.cpuNanosecondsPerFrame / 1e6,
                              reference.cpuNanosecondsPerFrame / 1e6, speed, row.framesPerSecond, reference.framesPerSecond)
            if let mine = row.peakRSSMiB, let theirs = reference.peakRSSMiB, theirs > 0 {
                line += String(format: ", peak RSS %.2fx (%.0f vs %.0f MiB)", mine / theirs, mine, theirs)
            }
            line += "; target CPU per frame <= 1.0x: \(cpu <= 1 ? "met" : "NOT met")"
            notes.append(line)
        }

        // What the recording adds: the row that records against the one that does not.
        var added: [String] = []
        for tool in ["CaptureKit", "ffmpeg"] {
            let rows = medians.filter { $0.job.tool == tool }
            guard let both = rows.first(where: { $0.job.recordingPath != nil })?.row,
                  let alone = rows.first(where: { $0.job.recordingPath == nil })?.row, alone.cpuNanosecondsPerFrame > 0 else { continue }
            let extra = both.cpuNanosecondsPerFrame - alone.cpuNanosecondsPerFrame
            added.append(String(format: "%@ %+.2f ms per frame (%+.1f %%: %.2f vs %.2f ms)", tool, extra / 1e6,
                                extra / alone.cpuNanosecondsPerFrame * 100, both.cpuNanosecondsPerFrame / 1e6,
                                alone.cpuNanosecondsPerFrame / 1e6))
        }
        if !added.isEmpty {
            notes.append("what the recording adds to the stream (CPU per frame, recording row - stream-only row): "
                         + added.joined(separator: ", "))
        }
        // The spread says whether that difference is more than the noise between runs.
        let spreads = allRuns.compactMap { job, runs -> String? in
            let perFrame = runs.map { $0.resources.cpuSeconds * 1e3 / Double(max(1, inputs.frames)) }
            guard let low = perFrame.min(), let high = perFrame.max() else { return nil }
            return String(format: "%@ %.2f-%.2f", job.label, low, high)
        }
        if !spreads.isEmpty {
            notes.append("CPU per input frame over the \(runs) runs, lowest-highest (ms): " + spreads.joined(separator: ", "))
        }

        // Every run, not only the medians: the unpaced encode must not outrun the destination's queue.
        var sent: [String] = []
        var incidents: [String] = []
        var lostSamples: [String] = []
        for (job, runs) in allRuns where job.tool == "CaptureKit" {
            let destinations = runs.compactMap(\.destinations.first)
            guard let first = destinations.first else { continue }
            let perRun = { (figure: (StreamStatistics) -> Int) in destinations.map { String(figure($0)) }.joined(separator: "/") }
            let megabytes = destinations.map { String(format: "%.1f", Double($0.bytesSent) / 1e6) }.joined(separator: "/")
            sent.append("\(job.label) → \(first.destination): frames sent \(perRun(\.framesSent)), dropped \(perRun(\.framesDropped)), "
                        + "reconnects \(perRun(\.reconnects)), MB sent \(megabytes) per run")
            incidents += runs.flatMap(\.incidents).map { "\(job.label): \($0)" }
            let lost = runs.compactMap(\.resources.droppedSamples)
            if lost.contains(where: { $0 > 0 }) {
                lostSamples.append("\(job.label): \(lost.map(String.init).joined(separator: "/")) per run")
            }
        }
        if !sent.isEmpty {
            notes.append("stream.statistics after each run (the input is unpaced, so the encode outruns real time; a destination's "
                         + "queue holds 2 s of media and drops whole groups past it): " + sent.joined(separator: "; "))
        }
        if !incidents.isEmpty {
            notes.append("stream events: " + incidents.joined(separator: "; "))
        }
        if !lostSamples.isEmpty {
            notes.append("samples the encode lost (CaptureStreamOutput.droppedSampleCount): " + lostSamples.joined(separator: "; "))
        }
        let audio = medians.filter { $0.job.recordingPath != nil }.map { "\($0.job.tool) \($0.run.resources.counts.audio)" }
        if !audio.isEmpty { notes.append("audio packets recorded: " + audio.joined(separator: ", ")) }

        let spawnFloor = allRuns.flatMap { $0.1.compactMap(\.resources.rssAtSpawnBytes) }.max() ?? 0
        notes.append(String(format: "peak RSS: CaptureKit's is this process's VmHWM over the job (its baseline included; the heap is "
                            + "trimmed before every run); ffmpeg's is its ru_maxrss, which counts this process's resident size at "
                            + "spawn as a floor (at most %.0f MiB here)", Double(spawnFloor) / 1_048_576))
        return notes
    }
}
