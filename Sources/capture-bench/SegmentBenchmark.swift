import Foundation

/// `segment-1080p`: the `record-1080p` input (1080p30 raw YUYV + WAV, unpaced) recorded in
/// segments of T seconds — CaptureKit's `startRecording(toFolder:segmentation:)` beside
/// `ffmpeg … -f segment -segment_time T -reset_timestamps 1` on the same input in the same run,
/// both x264 veryfast CRF 23 with a keyframe forced at every boundary and AAC 128 kbit/s, .mp4.
///
/// Besides the CPU per frame, ffprobe judges every segment of both: where its first frame lies
/// on the input's timeline against k·T, its frames, whether it starts on a keyframe at time
/// zero, and whether the segments' frames add up to the input's.
///
/// Target: at most ffmpeg's CPU per frame, with every cut on its boundary.
struct SegmentBenchmark: Benchmark {
    let name = "segment-1080p"
    let summary = "record 1080p30 raw yuyv422 + WAV in .mp4 segments, unpaced: CaptureKit startRecording(toFolder:) vs ffmpeg -f segment "
        + "(x264 veryfast CRF 23), CPU and boundary accuracy"

    /// Segments per recording the duration is chosen for: enough cuts to judge, each segment
    /// still seconds long.
    static let segmentsPerRecording = 5

    /// T: the input's length over ``segmentsPerRecording``, in whole seconds (so every boundary
    /// falls on a frame of the 30 fps input), and at least the 1 s `MovieSegmentation` allows.
    /// 2 s at the default 300 frames.
    static func segmentSeconds(frames: Int, frameRate: Int) -> Int {
        max(1, frames / (frameRate * segmentsPerRecording))
    }

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        guard let ffmpeg = ChildProcess.locate("ffmpeg"), let ffprobe = ChildProcess.locate("ffprobe") else {
            return BenchmarkReport(name: name, summary: summary, rows: [],
                                   notes: ["ffmpeg/ffprobe are not installed (apt-get install ffmpeg): they make the inputs and judge "
                                           + "the segments, so nothing was measured"])
        }
        let scratch = settings.scratchDirectory
        let inputs = try RecordInputs.make(frames: settings.frames, directory: scratch, ffmpeg: ffmpeg)
        defer { inputs.remove() }
        let seconds = Self.segmentSeconds(frames: inputs.frames, frameRate: inputs.frameRate)
        // A segmented CaptureKit recording's default keyframe interval (2 s), spelled out for
        // both; the boundaries' forced keyframes come on top of it.
        let keyframeInterval = 2 * inputs.frameRate
        let jobs: [any RecordJob] = [
            RecordPeer.ffmpegSegments(inputs: inputs, seconds: seconds, keyframeInterval: keyframeInterval,
                                      folder: "\(scratch)/segments_ffmpeg"),
            RecordCaptureKitCase.segmented(inputs: inputs, seconds: seconds, keyframeInterval: keyframeInterval,
                                           folder: "\(scratch)/segments_capturekit"),
        ]

        let rounds = try RecordRounds(jobs, rounds: RecordBenchmark.runs) { job in
            let folder = Self.folder(of: job)
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var run = try job.run(scratchDirectory: scratch)
            run.segments = try SegmentProbe.files(in: folder).map { try SegmentProbe.probe($0, in: folder, ffprobe: ffprobe) }
            guard !run.segments.isEmpty else { throw BenchError("\(job.label): no segment in \(folder)") }
            run.counts = RecordProbe.Counts(video: run.segments.reduce(0) { $0 + $1.videoFrames },
                                            audio: run.segments.reduce(0) { $0 + $1.audioPackets })
            return run
        }

        var notes = rounds.skippedNotes
        var medians: [(job: any RecordJob, run: RecordRun, row: Measurement)] = []
        for (index, job) in jobs.enumerated() {
            guard let median = rounds.median(index) else { continue }
            medians.append((job, median, RecordRounds.row(job, median)))
        }
        let reference = medians.first { $0.job.tool == "ffmpeg" }?.row
        let rows = medians.map { entry in
            var row = entry.row
            if let reference, reference.cpuNanosecondsPerFrame > 0 {
                row.cpuRatio = row.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            }
            return row
        }

        notes += Self.readingNotes(inputs: inputs, seconds: seconds, keyframeInterval: keyframeInterval)
        if let reference, let mine = rows.first(where: { $0.tool == "CaptureKit" }), reference.cpuNanosecondsPerFrame > 0 {
            let cpu = mine.cpuNanosecondsPerFrame / reference.cpuNanosecondsPerFrame
            notes.append(String(format: "CaptureKit / ffmpeg: CPU per frame %.2fx (%.2f vs %.2f ms), throughput %.2fx (%.1f vs %.1f frames/s)",
                                cpu, mine.cpuNanosecondsPerFrame / 1e6, reference.cpuNanosecondsPerFrame / 1e6,
                                reference.framesPerSecond > 0 ? mine.framesPerSecond / reference.framesPerSecond : 0,
                                mine.framesPerSecond, reference.framesPerSecond)
                         + "; target CPU per frame <= 1.0x: \(cpu <= 1 ? "met" : "NOT met")")
        }
        for (index, job) in jobs.enumerated() {
            guard let median = rounds.median(index) else { continue }
            let accuracy = SegmentAccuracy(segments: median.segments, frameRate: inputs.frameRate, seconds: seconds,
                                           inputFrames: inputs.frames)
            // The cuts follow the frames' timestamps, not the machine's speed: every run should
            // cut at the same frames, which the median run then stands for.
            let layouts = Set(rounds.runs[index].map { $0.segments.map(\.videoFrames) })
            let faults = accuracy.faults
            notes.append(accuracy.note(tool: job.tool) + "; " + (faults.isEmpty ? "exact" : "NOT exact: " + faults.joined(separator: ", "))
                         + (layouts.count == 1 ? ", the same cuts in all \(rounds.runs[index].count) runs"
                                               : ", the cuts DIFFERED between runs (\(layouts.count) layouts)"))
        }
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// The folder a job writes its segments into (ffmpeg's output is a pattern inside it).
    private static func folder(of job: any RecordJob) -> String {
        job is RecordCaptureKitCase ? job.outputPath : (job.outputPath as NSString).deletingLastPathComponent
    }

    private static func readingNotes(inputs: RecordInputs, seconds: Int, keyframeInterval: Int) -> [String] {
        [
            String(format: "input: as record-1080p's, %d frames (%.1f s) of testsrc2 1920x1080 at 30 fps as yuyv422 and a 48 kHz stereo "
                   + "tone; segments of %d s (the input's length / %d in whole seconds, at least 1 s), cut at multiples of it from the "
                   + "start: CaptureKit's MovieSegmentation.alignsToClock = false, ffmpeg's -segment_time (-segment_atclocktime cuts "
                   + "on the wall clock, which an unpaced input many times faster than real time would make meaningless)",
                   inputs.frames, Double(inputs.frames) / Double(inputs.frameRate), seconds, segmentsPerRecording),
            "equal settings: libx264 preset veryfast CRF 23, yuv420p, keyframe interval \(keyframeInterval) frames (a segmented "
                + "recording's default) plus one at every boundary (CaptureKit asks its encoder for it; ffmpeg -force_key_frames "
                + "expr:gte(t,n_forced*\(seconds))), AAC 128 kbit/s, .mp4 starting at time zero (-reset_timestamps 1); CaptureKit "
                + "writes each segment in 1/8 s fragments and rewrites it as an ordinary file once cut (measured, as is the index), "
                + "ffmpeg's mp4 muxer writes each unfragmented",
            "measured: median by CPU of \(RecordBenchmark.runs) runs per row, rounds interleaved; CaptureKit in this process "
                + "(getrusage over the whole job, up to didFinishRecording once the last segment is complete), ffmpeg as a child "
                + "(wait4 rusage, start-up included); frames = video packets in all segments (ffprobe), CPU ratio against ffmpeg",
        ]
    }
}
