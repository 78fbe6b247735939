import Glibc

/// A recording job run as a child process and measured through `wait4`: a peer tool's (ffmpeg
/// or gst-launch, from the anchor's `commands.txt`) or CaptureKit's own `capture record`.
struct RecordPeer: RecordJob {
    let label: String
    /// The command name, looked up on `PATH`, or "CaptureKit" for `capture record`.
    let tool: String
    let arguments: [String]
    let keyframeInterval: Int
    let outputPath: String
    /// The Debian packages that provide the tool and the elements it uses (for the "skipped" note).
    let packages: String
    /// The executable when it is not `tool` on `PATH` (`capture`, beside this benchmark).
    var executablePath: String? = nil

    /// Runs the command once, under `/usr/bin/time` where it is installed so that its peak RSS
    /// is its own (``ChildProcess/runUnderSmallParent(_:_:scratchDirectory:)``). Without it the
    /// kernel hands this process's high-water mark to the child at `exec` as the floor of its
    /// `ru_maxrss`, so the heap is trimmed and the mark reset first.
    func run(scratchDirectory: String) throws -> RecordRun {
        guard let executable = executablePath ?? ChildProcess.locate(tool) else {
            throw BenchError("\(tool) is not installed")
        }
        unlink(outputPath)
        RecordHeap.trim()
        if let result = try ChildProcess.runUnderSmallParent(executable, arguments, scratchDirectory: scratchDirectory) {
            return RecordRun(wallSeconds: result.wallSeconds, cpuSeconds: result.cpuSeconds, peakRSSBytes: result.peakRSSBytes,
                             peakRSSScope: "child of time", droppedSamples: nil, rssAtSpawnBytes: nil)
        }
        _ = PeakMemory.reset()
        let atSpawn = PeakMemory.current()
        let result = try ChildProcess.run(executable, arguments, scratchDirectory: scratchDirectory)
        return RecordRun(wallSeconds: result.wallSeconds, cpuSeconds: result.cpuSeconds, peakRSSBytes: result.peakRSSBytes,
                         peakRSSScope: "child", droppedSamples: nil, rssAtSpawnBytes: atSpawn)
    }

    /// CaptureKit's job as a child process, start-up included, as the peers run:
    /// `capture record OUT --device file:NUT --audio-device file:WAV --unpaced`, at the defaults
    /// (one keyframe per 1 s fragment) or, for any other interval, with `--fragment 0
    /// --keyframe-interval` — the same settings as ``RecordCaptureKitCase``'s two cases.
    static func capture(_ executable: String, inputs: RecordInputs, keyframeInterval: Int, outputPath: String) -> RecordPeer {
        let defaults = keyframeInterval == inputs.frameRate
        let interval = String(format: "%.3fs", Double(keyframeInterval) / Double(inputs.frameRate))
        return RecordPeer(
            label: "CaptureKit capture record (child), " + (defaults ? "defaults (keyint 30, 1 s fragments)" : "keyint \(keyframeInterval), fragments off"),
            tool: "CaptureKit",
            arguments: ["record", outputPath, "--device", "file:\(inputs.nutPath)", "--audio-device", "file:\(inputs.wavPath)", "--unpaced", "--quiet"]
                + (defaults ? [] : ["--fragment", "0", "--keyframe-interval", interval]),
            keyframeInterval: keyframeInterval, outputPath: outputPath, packages: "", executablePath: executable)
    }

    /// `ffmpeg … -c:v libx264 -preset veryfast -c:a aac -b:a 128k out.mov` as in the anchor's
    /// `a_ff_veryfast`, plus `-g` for the keyframe interval (libx264's own default is 250, which
    /// the anchor command relies on).
    static func ffmpeg(inputs: RecordInputs, keyframeInterval: Int, outputPath: String) -> RecordPeer {
        RecordPeer(
            label: "ffmpeg libx264 veryfast, keyint \(keyframeInterval)", tool: "ffmpeg",
            arguments: ffmpegEncoding(inputs: inputs, keyframeInterval: keyframeInterval) + [outputPath],
            keyframeInterval: keyframeInterval, outputPath: outputPath, packages: "ffmpeg")
    }

    /// ffmpeg reading the raw YUYV file and the WAV and encoding them at the shared settings
    /// (libx264 veryfast, its default CRF 23, yuv420p, AAC 128 kbit/s), up to the output: what
    /// `record-1080p` and `segment-1080p` write differs, how they encode must not.
    static func ffmpegEncoding(inputs: RecordInputs, keyframeInterval: Int) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
         "-f", "rawvideo", "-pix_fmt", "yuyv422", "-video_size", "\(inputs.width)x\(inputs.height)",
         "-framerate", String(inputs.frameRate), "-i", inputs.rawVideoPath, "-i", inputs.wavPath,
         "-map", "0:v:0", "-map", "1:a:0", "-pix_fmt", "yuv420p",
         "-c:v", "libx264", "-preset", "veryfast", "-g", String(keyframeInterval),
         "-c:a", "aac", "-b:a", "128k"]
    }

    /// The anchor's `a_gst_veryfast` pipeline with `key-int-max` set. `pass=qual quantizer=23
    /// bitrate=2048000` is the anchor's match for libx264's CRF 23 (out of the box x264enc caps
    /// at 2 Mbit/s).
    static func gstreamer(inputs: RecordInputs, keyframeInterval: Int, outputPath: String) -> RecordPeer {
        // One argument per token: gst-launch escapes each before joining them into a pipeline
        // description, so a path with spaces stays one value.
        let video = ["filesrc", "location=\(inputs.rawVideoPath)", "blocksize=\(inputs.width * inputs.height * 2)",
                     "!", "rawvideoparse", "width=\(inputs.width)", "height=\(inputs.height)", "format=yuy2",
                     "framerate=\(inputs.frameRate)/1",
                     "!", "videoconvert", "!", "video/x-raw,format=I420",
                     "!", "x264enc", "speed-preset=veryfast", "pass=qual", "quantizer=23", "bitrate=2048000",
                     "key-int-max=\(keyframeInterval)",
                     "!", "qtmux", "name=mux", "!", "filesink", "location=\(outputPath)"]
        let audio = ["filesrc", "location=\(inputs.wavPath)", "!", "wavparse", "!", "audioconvert",
                     "!", "avenc_aac", "bitrate=128000", "!", "mux."]
        return RecordPeer(
            label: "gst-launch x264enc veryfast, key-int-max \(keyframeInterval)", tool: "gst-launch-1.0",
            arguments: ["-q", "-e"] + video + audio,
            keyframeInterval: keyframeInterval, outputPath: outputPath,
            packages: "gstreamer1.0-tools gstreamer1.0-plugins-{base,good,bad,ugly} gstreamer1.0-libav")
    }
}
