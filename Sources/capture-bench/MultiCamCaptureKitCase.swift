import CaptureKit
import Dispatch
import Foundation
import Glibc

/// CaptureKit's side of `multicam`, in this process through the public API: N cameras from the
/// benchmark's ``MultiCamCameraSource`` — virtual cameras on the host (640x480 NV12 at 30 fps in
/// real time, each looping ``MultiCamInput``'s testsrc2 frames from memory, one copy shared by
/// all) or vivid's in the test VM (``MultiCamVividCameras``) — in one ``CaptureMultiCamSession``,
/// each camera connected by hand (``CaptureSession/addInputWithNoConnections(_:)``,
/// ``CaptureSession/addOutputWithNoConnections(_:)``, ``CaptureSession/addConnection(_:)``) to a
/// ``CaptureVideoDataOutput``, whose delegate counts the frames and drops
/// (``MultiCamFrameCounter``), and to a ``CaptureMovieFileOutput`` at its default settings —
/// H.264 through libx264 `veryfast` CRF 23 in yuv420p, a keyframe per 1 s fragment, made an
/// ordinary `.mp4` when it ends. Every recording is armed before the session starts, runs the
/// recorded time, then all are finished at once and the session stopped.
///
/// The whole row is measured by this process's `getrusage`, from before the first camera is
/// made to after the session has stopped: delivering the pictures, converting them to
/// yuv420p, encoding, writing and defragmenting the files. What the source readies first (the
/// virtual cameras' frames in memory) is outside the measured CPU but inside the peak RSS.
struct MultiCamCaptureKitCase: MultiCamJob {
    let label: String
    let tool = "CaptureKit"
    let cameras: Int
    let outputPaths: [String]
    /// Where the cameras come from.
    let source: any MultiCamCameraSource

    /// `cameras` cameras from `source`, writing `multicam_KIND_capturekit_N_I.mp4` in `scratchDirectory`.
    init(cameras: Int, source: any MultiCamCameraSource, scratchDirectory: String) {
        label = "CaptureKit multi-cam ×\(cameras)"
        self.cameras = cameras
        self.source = source
        outputPaths = (0..<cameras).map { "\(scratchDirectory)/multicam_\(source.kind)_capturekit_\(cameras)_\($0).mp4" }
    }

    func run(seconds: Double, scratchDirectory: String) throws -> MultiCamRun {
        outputPaths.forEach { unlink($0) }
        try source.prepare()
        RecordHeap.trim()
        let wasReset = PeakMemory.reset()
        let steps = MultiCamEncoderSteps()
        defer { _ = steps.stop() }
        let before = ResourceSnapshot.now()

        let devices = try source.makeCameras(cameras, row: label)
        defer { source.release(devices) }

        let session = CaptureMultiCamSession()
        let counters = devices.map { _ in MultiCamFrameCounter() }
        let dataOutputs = devices.map { _ in CaptureVideoDataOutput() }
        let movies = devices.map { _ in CaptureMovieFileOutput() }
        for (index, output) in dataOutputs.enumerated() {
            output.setSampleBufferDelegate(counters[index], queue: DispatchQueue(label: "capture-bench.multicam.frames\(index)"))
        }
        try session.configure {
            for (index, device) in devices.enumerated() {
                let input = try CaptureDeviceInput(device: device)
                try session.addInputWithNoConnections(input)
                guard let port = input.port(for: .video) else { throw BenchError("\(device.localizedName) has no video port") }
                for output in [dataOutputs[index], movies[index]] as [CaptureOutput] {
                    try session.addOutputWithNoConnections(output)
                    try session.addConnection(CaptureConnection(inputPorts: [port], output: output))
                }
            }
        }
        // MovieOutputSettings() is the default (H.264, x264 veryfast, CRF 23), spelled out so the
        // row says what it encodes; a raw camera is never passed through.
        for movie in movies {
            guard let connection = movie.connection(with: .video) else { throw BenchError("\(label): a movie output has no video connection") }
            movie.setOutputSettings(MovieOutputSettings(), for: connection)
        }

        // Armed before the session starts: every file begins with its camera's first frame.
        for (index, movie) in movies.enumerated() {
            try movie.startRecording(to: URL(fileURLWithPath: outputPaths[index]))
        }
        do {
            try session.startRunning()
        } catch {
            _ = MovieFinisher.finish(movies)
            throw error
        }
        // The measured window, not a synchronisation: the cameras run this long.
        Thread.sleep(forTimeInterval: seconds)
        guard let recorded = MovieFinisher.finish(movies) else {
            try? session.stopRunning()
            throw BenchError("\(label): a recording did not finish within 30 s")
        }
        try session.stopRunning()
        let statistics = dataOutputs.map(\.statistics)
        for output in dataOutputs { output.setSampleBufferDelegate(nil, queue: nil) }
        let after = ResourceSnapshot.now()
        let stepped = steps.stop()
        let peak = PeakMemory.peak(wasReset: wasReset)
        withExtendedLifetime(counters) {}

        if let failed = recorded.first(where: { $0.error.map { !$0.recordingSuccessfullyFinished } ?? false }) {
            throw BenchError("\(label): the recording of \(failed.url.lastPathComponent) failed: \(failed.error.map { "\($0)" } ?? "")")
        }
        return MultiCamRun(wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                           peakRSSBytes: peak.bytes, peakRSSScope: peak.scope, rssAtSpawnBytes: nil,
                           delivered: statistics.map(\.delivered).reduce(0, +), dropped: statistics.map(\.dropped).reduce(0, +),
                           dropCallbacks: counters.map(\.dropped).reduce(0, +),
                           movieDropped: recorded.map(\.droppedSampleCount).reduce(0, +),
                           movieFrames: recorded.map(\.videoFrameCount).reduce(0, +),
                           stepsFaster: stepped.faster, stepsSlower: stepped.slower)
    }
}
