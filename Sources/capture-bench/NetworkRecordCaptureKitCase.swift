import CaptureKit
import Dispatch
import Foundation
import Glibc

/// CaptureKit's side of `network-record-720p`, in this process through the public API — what
/// `capture record OUT.mp4 --device rtsp://… --no-audio --duration D` does N times at once,
/// without the process start-ups: per camera, on a thread of its own, a
/// ``CaptureDevice/networkCamera(url:options:)`` over RTSP/TCP, a ``CaptureSession`` (preset
/// `.inputPriority`: the camera's own format) with its ``CaptureDeviceInput`` and a
/// ``CaptureMovieFileOutput`` at its default settings — the camera's H.264 stored as it came,
/// a fragment every second, made an ordinary file when it ends — armed before the session
/// starts, D seconds of recording, then ``CaptureMovieFileOutput/finishRecording()`` and the
/// session stopped.
///
/// With only that output nothing looks at the pixels, so no frame is decoded. The `decoding`
/// row adds a ``CaptureVideoDataOutput`` whose delegate does nothing: every frame is then
/// decoded for it, which shows what decoding costs a camera.
///
/// The whole row is measured by this process's `getrusage`, from before the first device is
/// made to after the last file is finished: each camera's probe connection and the session's
/// own connection, the readers, the sessions and the writers, as ffmpeg's CPU includes its
/// start-up and probe.
struct NetworkRecordCaptureKitCase: NetworkRecordJob {
    let label: String
    let tool = "CaptureKit"
    let cameras: Int
    let outputPaths: [String]
    /// Whether each session also has a data output, so every frame is decoded.
    let decoding: Bool

    /// `cameras` sessions, writing `network_capturekit_N_I.mp4` (`…_decoding_…` for the decoding
    /// row) in `scratchDirectory`.
    init(cameras: Int, decoding: Bool, scratchDirectory: String) {
        label = "CaptureKit ×\(cameras)\(decoding ? ", decoding" : "")"
        self.cameras = cameras
        self.decoding = decoding
        let kind = decoding ? "capturekit_decoding" : "capturekit"
        outputPaths = (0..<cameras).map { "\(scratchDirectory)/network_\(kind)_\(cameras)_\($0).mp4" }
    }

    func run(url: String, seconds: Int, scratchDirectory: String) throws -> NetworkRecordRun {
        outputPaths.forEach { unlink($0) }
        RecordHeap.trim()
        let wasReset = PeakMemory.reset()
        let paths = outputPaths, decoding = decoding, label = label
        let before = ResourceSnapshot.now()
        let results = ConcurrentThreads.run(cameras, name: "capture-bench camera") { index in
            try Self.record(url: url, camera: index, to: paths[index], seconds: seconds, decoding: decoding, label: label)
        }
        let after = ResourceSnapshot.now()
        let peak = PeakMemory.peak(wasReset: wasReset)

        // Each camera's data output statistics (nil where the row does not decode).
        let statistics = try results.map { try $0.get() }.compactMap { $0 }
        return NetworkRecordRun(wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                                peakRSSBytes: peak.bytes, peakRSSScope: peak.scope, rssAtSpawnBytes: nil,
                                delivered: decoding ? statistics.map(\.delivered).reduce(0, +) : nil,
                                dropped: decoding ? statistics.map(\.dropped).reduce(0, +) : nil)
    }

    /// One camera, on its own thread: device, session, `seconds` of recording, the finished
    /// file; returns the data output's statistics when `decoding`. Throws when the movie would not store the camera's packets as they came (the row
    /// would not measure what it says), or when the recording failed.
    private static func record(url: String, camera index: Int, to path: String, seconds: Int, decoding: Bool,
                               label: String) throws -> SampleBufferOutput.Statistics? {
        var options = NetworkCameraOptions()
        options.rtspTransport = .tcp
        options.name = "bench camera \(index)"
        let camera = try CaptureDevice.networkCamera(url: url, options: options)

        let session = CaptureSession()
        let movie = CaptureMovieFileOutput()
        // Held here: an output holds its delegate weakly.
        let discarder = FrameDiscarder()
        let frames = decoding ? CaptureVideoDataOutput() : nil
        frames?.setSampleBufferDelegate(discarder, queue: DispatchQueue(label: "capture-bench.network.frames\(index)"))
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.setSessionPreset(.inputPriority)
        try session.addOutput(movie)
        if let frames { try session.addOutput(frames) }
        try session.commitConfiguration()
        guard let video = movie.connection(with: .video), movie.passesVideoThrough(for: video) else {
            throw BenchError("\(label): camera \(index)'s recording would not store its \(camera.activeFormat.encoding.rawValue) as it came")
        }

        // Armed before the session starts, as `capture record` does: the file begins at the
        // first keyframe the session delivers.
        try movie.startRecording(to: URL(fileURLWithPath: path))
        do {
            try session.startRunning()
        } catch {
            _ = try? finish(movie, label: label)
            throw error
        }
        // The measured window, not a synchronisation: the cameras are recorded this long.
        Thread.sleep(forTimeInterval: Double(seconds))
        let recorded: RecordedMovie
        do {
            recorded = try finish(movie, label: label)
        } catch {
            try? session.stopRunning()
            throw error
        }
        try session.stopRunning()
        frames?.setSampleBufferDelegate(nil, queue: nil)
        withExtendedLifetime(discarder) {}
        if let error = recorded.error {
            throw BenchError("\(label): camera \(index)'s recording failed: \(error)")
        }
        return frames?.statistics
    }

    /// The finished movie (``MovieFinisher``); throws when the file is not finished within 30 s.
    private static func finish(_ movie: CaptureMovieFileOutput, label: String) throws -> RecordedMovie {
        guard let recorded = MovieFinisher.finish([movie])?.first else {
            throw BenchError("\(label): a recording did not finish within 30 s")
        }
        return recorded
    }

    /// A data output's delegate that does nothing with the frames: the decode they needed is
    /// the cost the `decoding` row shows.
    private final class FrameDiscarder: SampleBufferDelegate {
        func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {}
    }
}
