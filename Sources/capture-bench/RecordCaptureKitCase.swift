import CaptureKit
import Dispatch
import Foundation
import Glibc

/// CaptureKit's side of `record-1080p` (and, segmented, of `segment-1080p`), in this process through the public API — what
/// `capture record OUT --device file:NUT --audio-device file:WAV --unpaced` does, without the
/// process start-up: unpaced file devices (as fast as the encoder takes frames: a device is held
/// back, not dropped from, while the encoder is behind), a movie output armed before the session
/// starts so the first frame is recorded, stopped when both files have ended, finished file
/// (defragmented when fragmented).
///
/// The whole job is measured, from opening the files to the closed movie, by this process's
/// `getrusage`: every CaptureKit thread (file readers, session, encoder, x264's threads).
struct RecordCaptureKitCase: RecordJob {
    let label: String
    let tool = "CaptureKit"
    let keyframeInterval: Int
    let outputPath: String
    let inputs: RecordInputs
    /// The fragment interval; nil writes an ordinary file (`movieFragmentInterval = .invalid`).
    let fragmentInterval: MediaTime?
    /// Set `MovieOutputSettings.keyframeInterval` to ``keyframeInterval`` frames; when false
    /// the default applies (one keyframe per fragment interval).
    let setsKeyframeInterval: Bool
    /// Record in segments into the folder ``outputPath`` (`segment-1080p`) instead of one movie.
    var segmentation: MovieSegmentation? = nil

    /// CaptureKit's defaults: 1 s fragments, so a keyframe every 30 frames at 30 fps.
    static func defaults(inputs: RecordInputs, outputPath: String) -> RecordCaptureKitCase {
        RecordCaptureKitCase(label: "CaptureKit record, defaults (keyint 30, 1 s fragments)", keyframeInterval: inputs.frameRate,
                             outputPath: outputPath, inputs: inputs, fragmentInterval: MediaTime(value: 1, timescale: 1),
                             setsKeyframeInterval: false)
    }

    /// libx264's own keyframe interval (250 frames) and an ordinary, unfragmented file, as
    /// ffmpeg writes by default.
    static func keyint250(inputs: RecordInputs, outputPath: String) -> RecordCaptureKitCase {
        RecordCaptureKitCase(label: "CaptureKit record, keyint 250, fragments off", keyframeInterval: 250,
                             outputPath: outputPath, inputs: inputs, fragmentInterval: nil, setsKeyframeInterval: true)
    }

    func run(scratchDirectory: String) throws -> RecordRun {
        // A segmented recording's folder is made empty by its benchmark: it must exist.
        if segmentation == nil { unlink(outputPath) }
        RecordHeap.trim()
        let wasReset = PeakMemory.reset()
        let before = ResourceSnapshot.now()

        let options = FileDeviceOptions(pacing: .unpaced, looping: false)
        let videoFile = try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: inputs.nutPath), options: options)
        defer { videoFile.remove() }
        let audioFile = try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: inputs.wavPath), options: options)
        defer { audioFile.remove() }
        guard let camera = videoFile.video, let microphone = audioFile.audio else {
            throw BenchError("the record inputs did not make a camera and a microphone")
        }

        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.addInput(CaptureDeviceInput(device: microphone))
        try session.setSessionPreset(.high)
        let movie = CaptureMovieFileOutput()
        movie.movieFragmentInterval = fragmentInterval ?? .invalid
        try session.addOutput(movie)
        try session.commitConfiguration()
        var settings = MovieOutputSettings()   // libx264 veryfast CRF 23, AAC 128 kbit/s
        if setsKeyframeInterval {
            settings.keyframeInterval = MediaTime(value: Int64(keyframeInterval), timescale: Int32(inputs.frameRate))
        }
        for connection in movie.connections { movie.setOutputSettings(settings, for: connection) }

        let completion = RecordCompletion(deviceIDs: [camera.uniqueID, microphone.uniqueID], movie: movie)
        let events = DispatchQueue(label: "capture-bench.record.events")
        session.setDelegate(completion, queue: events)
        // Armed before the session starts: an unpaced file would otherwise be half read first.
        if let segmentation {
            try movie.startRecording(toFolder: URL(fileURLWithPath: outputPath, isDirectory: true), segmentation: segmentation,
                                     recordingDelegate: completion, queue: events)
        } else {
            try movie.startRecording(to: URL(fileURLWithPath: outputPath), recordingDelegate: completion, queue: events)
        }
        do {
            try session.startRunning()
        } catch {
            movie.stopRecording()
            _ = completion.wait(seconds: 10)
            throw error
        }
        // Generous: 1080p veryfast runs at tens of frames per second even on a busy machine.
        let timeout = 120 + Double(inputs.frames)
        guard let outcome = completion.wait(seconds: timeout) else {
            movie.stopRecording()
            try? session.stopRunning()
            throw BenchError("\(label): the recording did not finish within \(Int(timeout)) s")
        }
        try session.stopRunning()
        session.setDelegate(nil, queue: nil)
        let after = ResourceSnapshot.now()
        let peak = PeakMemory.peak(wasReset: wasReset)

        if let error = outcome, !error.recordingSuccessfullyFinished {
            throw BenchError("\(label): the recording failed: \(error)")
        }
        return RecordRun(wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                         peakRSSBytes: peak.bytes, peakRSSScope: peak.scope,
                         droppedSamples: movie.lastRecordedMovie?.droppedSampleCount, rssAtSpawnBytes: nil)
    }
}
