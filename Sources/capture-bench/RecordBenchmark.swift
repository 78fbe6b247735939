import Glibc

/// `record-1080p` (issue 3): recording a 1080p30 raw YUYV file and a WAV to H.264 + AAC `.mov` as
/// fast as possible — CaptureKit's movie output fed by unpaced file devices, beside
/// `ffmpeg -f rawvideo … -c:v libx264 -preset veryfast -c:a aac out.mov` and the equivalent
/// gst-launch pipeline, on the same input in the same run.
///
/// Every tool encodes at the same settings: libx264 preset veryfast CRF 23 in yuv420p, AAC
/// 128 kbit/s, QuickTime. The keyframe interval is matched pairwise: CaptureKit's default (a
/// keyframe per 1 s fragment) beside ffmpeg `-g 30` and gst `key-int-max=30`, and libx264's
/// default 250 (the anchor's commands) beside CaptureKit with a 250-frame keyframe interval and
/// fragments off.
///
/// Target: at least ffmpeg's throughput and at most its CPU per frame.
struct RecordBenchmark: Benchmark {
    let name = "record-1080p"
    let summary = "record 1080p30 raw yuyv422 + WAV to H.264/AAC .mov, unpaced: CaptureKit vs ffmpeg and gst-launch (x264 veryfast CRF 23)"

    /// Runs per row; the median by CPU is reported. Rounds are interleaved (every row once,
    /// then again), so a burst of load from elsewhere hits all rows alike.
    static let runs = 3

    /// A row's median run and the table row made from it.
    private typealias Median = (job: any RecordJob, run: RecordRun, row: Measurement)

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        // ffmpeg makes the inputs and ffprobe counts what every row wrote: without them nothing
        // here can be measured fairly.
        guard let ffmpeg = ChildProcess.locate("ffmpeg"), let ffprobe = ChildProcess.locate("ffprobe") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg/ffprobe are not installed (apt-get install ffmpeg): they make the inputs and count "
                                           + "the frames written, so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        let inputs = try RecordInputs.make(frames: settings.frames, directory: scratch, ffmpeg: ffmpeg)
        defer { inputs.remove() }

        var notes: [String] = []
        var jobs: [any RecordJob] = []
        let hasGStreamer = ChildProcess.locate("gst-launch-1.0") != nil
        let capture = ChildProcess.captureExecutable
        let hasCapture = access(capture, X_OK) == 0
        // CaptureKit's default keyframe interval is one 1 s fragment: the frame rate in frames.
        for interval in [inputs.frameRate, 250] {
            let output = { (tool: String) in "\(scratch)/record_out_\(tool)_k\(interval).mov" }
            jobs.append(RecordPeer.ffmpeg(inputs: inputs, keyframeInterval: interval, outputPath: output("ffmpeg")))
            if hasGStreamer {
                jobs.append(RecordPeer.gstreamer(inputs: inputs, keyframeInterval: interval, outputPath: output("gst")))
            }
            jobs.append(interval == 250 ? RecordCaptureKitCase.keyint250(inputs: inputs, outputPath: output("capturekit"))
                                        : RecordCaptureKitCase.defaults(inputs: inputs, outputPath: output("capturekit")))
            if hasCapture {
                jobs.append(RecordPeer.capture(capture, inputs: inputs, keyframeInterval: interval, outputPath: output("capture")))
            }
        }
        if !hasCapture { notes.append("\(capture) is not built (swift build -c release --product capture): no capture record rows") }
        if !hasGStreamer {
            notes.append("gst-launch-1.0 is not installed (apt-get install gstreamer1.0-tools gstreamer1.0-plugins-{base,good,bad,ugly} "
                         + "gstreamer1.0-libav): no gst rows")
        }

        let rounds = try RecordRounds(jobs, rounds: Self.runs) { job in
            defer { unlink(job.outputPath) }
            var run = try job.run(scratchDirectory: scratch)
            run.counts = try RecordProbe.count(job.outputPath, ffprobe: ffprobe)
            if job.tool == "CaptureKit", run.counts.video != inputs.frames || run.counts.audio == 0 {
                throw BenchError("\(job.label): the movie has \(run.counts.video) video frames (expected \(inputs.frames)) "
                                 + "and \(run.counts.audio) audio packets (expected some)")
            }
            return run
        }
        notes += rounds.skippedNotes

        var rows: [Measurement] = []
        var medians: [Median] = []
        for (index, job) in jobs.enumerated() {
            guard let median = rounds.median(index) else { continue }
            medians.append((job, median, RecordRounds.row(job, median)))
        }
        // Each row's CPU ratio is against the ffmpeg row with the same keyframe interval.
        for entry in medians {
            var row = entry.row
            if let reference = Self.reference(for: entry.job, in: medians), reference.cpuNanosecondsPerFrame > 0 {
                row.cpuRatio = row.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            }
            rows.append(row)
        }

        notes += Self.readingNotes(inputs: inputs, medians: medians, allRuns: zip(jobs, rounds.runs).map { ($0, $1) })
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// The ffmpeg row a row is compared to: the one with the same keyframe interval.
    private static func reference(for job: any RecordJob, in medians: [Median]) -> Measurement? {
        medians.first { $0.job.tool == "ffmpeg" && $0.job.keyframeInterval == job.keyframeInterval }?.row
    }

    private static func readingNotes(inputs: RecordInputs, medians: [Median],
                                     allRuns: [(any RecordJob, [RecordRun])]) -> [String] {
        let rawMiB = Double(inputs.width * inputs.height * 2 * inputs.frames) / 1_048_576
        var notes = [
            String(format: "input: %d frames of testsrc2 1920x1080 at 30 fps as yuyv422 (%.0f MiB raw) and a 440 Hz 48 kHz stereo s16 "
                   + "WAV of the same length; the peers read the raw file as in the anchor's commands, CaptureKit the same bytes "
                   + "wrapped in NUT (-c:v rawvideo, not re-encoded), through unpaced file devices", inputs.frames, rawMiB),
            "equal settings: libx264 preset veryfast CRF 23 (gst: pass=qual quantizer=23 bitrate=2048000), yuv420p, AAC 128 kbit/s, "
                + ".mov; keyframe interval matched per pair: keyint 30 = ffmpeg -g 30, gst key-int-max=30 and CaptureKit's defaults "
                + "(a keyframe per 1 s fragment; the fragmented file is defragmented when the recording ends, which is measured); "
                + "keyint 250 = libx264's default (the anchor's commands, with -g 250 spelled out) and CaptureKit with "
                + "MovieOutputSettings.keyframeInterval = 250 frames and movieFragmentInterval = .invalid",
            "measured: median by CPU of \(runs) runs per row, rounds interleaved; CaptureKit in this process through the library "
                + "API (getrusage over the whole job: opening the files, session, encoding, closing the movie; no process start-up), "
                + "peers as child processes (wait4 rusage, start-up included: ffmpeg ~0.1 s, gst-launch ~0.03 s)",
            "frames = video packets in the output (ffprobe -count_packets), so rows are credited with the work they did; "
                + "CPU ratio = CPU per frame / that of the ffmpeg row with the same keyframe interval (lower is better); "
                + "frames/s is wall clock on a shared machine, CPU per frame is the steadier figure",
        ]
        let audio = medians.map { "\($0.job.tool) k\($0.job.keyframeInterval) \($0.run.counts.audio)" }
        notes.append("audio packets written: " + audio.joined(separator: ", "))

        for entry in medians where entry.job.tool != "ffmpeg" {
            guard let reference = Self.reference(for: entry.job, in: medians),
                  reference.framesPerSecond > 0, reference.cpuNanosecondsPerFrame > 0 else { continue }
            let row = entry.row
            let speed = row.framesPerSecond / reference.framesPerSecond
            let cpu = row.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            var line = String(format: "%@ / ffmpeg keyint %d: throughput %.2fx (%.1f vs %.1f frames/s), CPU per frame %.2fx "
                              + "(%.2f vs %.2f ms)", row.label, entry.job.keyframeInterval, speed, row.framesPerSecond,
                              reference.framesPerSecond, cpu, row.cpuNanosecondsPerFrame / 1e6, reference.cpuNanosecondsPerFrame / 1e6)
            if let mine = row.peakRSSMiB, let theirs = reference.peakRSSMiB, theirs > 0 {
                line += String(format: ", peak RSS %.2fx (%.0f vs %.0f MiB)", mine / theirs, mine, theirs)
            }
            if entry.job.tool == "CaptureKit" {
                line += "; target throughput >= 1.0x: \(speed >= 1 ? "met" : "NOT met"), CPU per frame <= 1.0x: \(cpu <= 1 ? "met" : "NOT met")"
            }
            notes.append(line)
        }

        var spawnFloor = 0
        var dropped: [String] = []
        for (job, runs) in allRuns {
            spawnFloor = max(spawnFloor, runs.compactMap(\.rssAtSpawnBytes).max() ?? 0)
            let lost = runs.compactMap(\.droppedSamples)
            if lost.contains(where: { $0 > 0 }) {
                dropped.append("\(job.label): \(lost.map(String.init).joined(separator: "/")) per run")
            }
        }
        var memory = "peak RSS: the in-process CaptureKit rows' is this process's VmHWM over the job (its baseline included; the heap "
            + "is trimmed before every run); a child's (the peers' and capture record's) is "
        memory += spawnFloor == 0
            ? "its own ru_maxrss as /usr/bin/time reports it (a small parent, so no floor): compare capture record's with ffmpeg's"
            : String(format: "its ru_maxrss, which counts this process's resident size at spawn as a floor (at most %.0f MiB here; "
                     + "install time for an unfloored figure)", Double(spawnFloor) / 1_048_576)
        notes.append(memory)
        if !dropped.isEmpty {
            notes.append("dropped = samples CaptureKit's recording discarded (RecordedMovie.droppedSampleCount) and filled with silence, "
                         + "so its audio is not the same work as the peers' (silence costs the AAC encoder less): "
                         + dropped.joined(separator: "; "))
        }
        return notes
    }
}
