import CaptureKit

/// `delivery-1080p`: what CaptureKit costs to hand a 1080p frame from a device to its outputs,
/// beside ffmpeg reading the same frames and throwing them away (`-f null`).
///
/// The virtual camera loops pre-rendered frames unpaced, so it neither draws nor sleeps: all
/// that is measured is making the sample buffer and delivering it by reference. ffmpeg spends
/// about 1 ms of CPU per 1080p frame on its raw-to-null pipeline (DESIGN.md, "Hot paths and
/// budgets"); delivery should cost a small fraction of that.
struct DeliveryBenchmark: Benchmark {
    let name = "delivery-1080p"
    let summary = "virtual camera delivery of 1920x1080 yuyv422 frames to 0, 1 and 3 outputs, unpaced, vs ffmpeg rawvideo -> null"

    static let width = 1920
    static let height = 1080
    static let pixelFormat = PixelFormat.yuyv422
    /// Unpaced delivery goes through a few hundred frames in milliseconds; a window this long
    /// keeps thread start-up and stop out of the per-frame figures.
    static let minimumSeconds = 1.0
    /// Peer runs; the median (by CPU) is reported.
    static let peerRuns = 3
    /// The peer row's label, which the CPU ratios refer to.
    static let peerLabel = "ffmpeg rawvideo -> null"

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let input = try RawVideoInput.write(count: settings.frames, width: Self.width, height: Self.height,
                                            pixelFormat: Self.pixelFormat, path: "\(settings.scratchDirectory)/delivery_1080p.yuyv")
        defer { input.remove() }
        var notes: [String] = []

        let peer = PeerCommand(
            label: Self.peerLabel, command: "ffmpeg",
            arguments: ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                        "-f", "rawvideo", "-pix_fmt", Self.pixelFormat.rawValue,
                        "-video_size", "\(Self.width)x\(Self.height)", "-framerate", "30",
                        "-i", input.path, "-f", "null", "-"],
            frames: settings.frames, package: "ffmpeg")
        // The peer runs before the frames are loaded: the child inherits this process's peak RSS
        // at exec as a floor for its own, so this process must be small then (see RawVideoInput).
        // The file just written is in the page cache, as the camera's frames will be in memory.
        _ = PeakMemory.reset()
        let rssAtSpawn = PeakMemory.current()
        let peerRow = try peer.measure(runs: Self.peerRuns, scratchDirectory: settings.scratchDirectory)
        if peerRow == nil {
            notes.append("ffmpeg is not installed (apt-get install \(peer.package)): no peer row and no ratios")
        }

        // `.frames` makes the camera loop these buffers without drawing: only delivery is measured.
        var configuration = VirtualCameraConfiguration(name: "capture-bench delivery camera")
        configuration.content = .frames(try input.loadFrames())
        configuration.pacing = .unpaced
        configuration.frameRates = [30]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }

        var rows: [Measurement] = []
        let scenarios: [DeliveryScenario] = [.noOutputs, .idleOutput, .listening(count: 1), .listening(count: 3)]
        for scenario in scenarios {
            rows.append(try scenario.measure(camera: camera, minimumFrames: settings.frames, minimumSeconds: Self.minimumSeconds))
        }
        if let peerRow { rows.append(peerRow) }

        var report = BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
        report.setRatios(against: Self.peerLabel)
        report.notes += Self.readingNotes(rows: rows, frames: settings.frames, frameByteCount: input.frameByteCount,
                                          rssAtSpawn: peerRow == nil ? nil : rssAtSpawn)
        return report
    }

    /// How to read the table; `rssAtSpawn` is nil when there is no peer row (or /proc cannot tell).
    private static func readingNotes(rows: [Measurement], frames: Int, frameByteCount: Int, rssAtSpawn: Int?) -> [String] {
        let inputMiB = Double(frameByteCount * frames) / 1_048_576
        var notes = [
            "frames: produced by the camera (counted by sequence number) for CaptureKit, read from the file for ffmpeg; "
                + "CaptureKit cases run for at least \(Int(minimumSeconds)) s, looping the \(frames) input frames",
            "CPU = user+sys (getrusage / wait4); CPU ns/delivery = CPU / frames handed to delegates; "
                + "CPU ratio = CPU ns/frame of the row / that of ffmpeg, whose figure includes its start-up "
                + "(ffmpeg: median of \(peerRuns) runs)",
            "delivered/dropped: summed over outputs (statistics); unpaced, a busy output keeps only the newest frame",
        ]
        let perCase = rows.allSatisfy { $0.tool != "CaptureKit" || $0.peakRSSScope == "case" }
        notes.append(String(format: "CaptureKit peak RSS is %@ and includes the %d input frames held in memory (%.0f MiB)",
                            perCase ? "per case (VmHWM)" : "the whole process's (ru_maxrss; VmHWM could not be reset)",
                            frames, inputMiB))
        if let rssAtSpawn {
            notes.append(String(format: "ffmpeg peak RSS is the child's ru_maxrss, which counts this process's RSS at spawn "
                                + "(%.1f MiB) as a floor", Double(rssAtSpawn) / 1_048_576))
        }
        for row in rows {
            if let unaccounted = row.unaccounted, unaccounted != 0 {
                notes.append("\(row.label): after stopping, \(unaccounted) frame(s) are neither delivered nor dropped "
                             + "in the outputs' statistics (expected 0)")
            }
        }
        return notes
    }
}
