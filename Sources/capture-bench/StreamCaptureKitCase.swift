import CaptureKit
import Dispatch
import Foundation
import Glibc

/// CaptureKit's side of `stream-1080p`, in this process through the public API — what
/// `capture stream rtmp://… --record OUT.mov --device file:NUT --audio-device file:WAV` does
/// with unpaced devices, without the process start-up: unpaced file devices (as fast as the
/// encoder takes frames: a device is held back, not dropped from, while the encoder is behind),
/// a ``CaptureStreamOutput`` with one RTMP destination and, for one row, its recording from the
/// same encode; the session stopped when both files have ended, then every destination and the
/// recording waited for.
///
/// The output's own encoding applies: libx264 veryfast, tune zerolatency, a constant
/// 2.5 Mbit/s with a 2.5 Mbit buffer, a keyframe every 2 s (60 frames), AAC 128 kbit/s.
///
/// The whole job is measured, from opening the files to the last destination ended and the
/// recording closed, by this process's `getrusage`: every CaptureKit thread (file readers,
/// session, encoder, x264's threads, the destination's sender, the recording's writer).
struct StreamCaptureKitCase: StreamJob {
    let label: String
    let tool = "CaptureKit"
    let recordingPath: String?
    /// The NUT and the WAV it reads.
    let inputs: RecordInputs
    /// Where the stream is published (``BenchRTMPServer/url(streamKey:)``).
    let destination: String

    /// The stream and its recording from the one encode.
    static func recordAndStream(inputs: RecordInputs, destination: String, recordingPath: String) -> StreamCaptureKitCase {
        StreamCaptureKitCase(label: "CaptureKit stream + recording (one encode)", recordingPath: recordingPath, inputs: inputs,
                             destination: destination)
    }

    /// The stream alone.
    static func streamOnly(inputs: RecordInputs, destination: String) -> StreamCaptureKitCase {
        StreamCaptureKitCase(label: "CaptureKit stream only", recordingPath: nil, inputs: inputs, destination: destination)
    }

    func run(scratchDirectory: String) throws -> StreamRun {
        if let recordingPath { unlink(recordingPath) }
        RecordHeap.trim()
        let wasReset = PeakMemory.reset()
        let before = ResourceSnapshot.now()

        let options = FileDeviceOptions(pacing: .unpaced, looping: false)
        let videoFile = try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: inputs.nutPath), options: options)
        defer { videoFile.remove() }
        let audioFile = try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: inputs.wavPath), options: options)
        defer { audioFile.remove() }
        guard let camera = videoFile.video, let microphone = audioFile.audio else {
            throw BenchError("the stream inputs did not make a camera and a microphone")
        }

        let stream = CaptureStreamOutput()   // libx264 veryfast zerolatency 2.5 Mbit/s CBR, keyframe every 2 s, AAC 128 kbit/s
        try stream.setDestinations([StreamDestination(destination)])
        try stream.setRecordingURL(recordingPath.map { URL(fileURLWithPath: $0) })
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.addInput(CaptureDeviceInput(device: microphone))
        try session.setSessionPreset(.high)
        try session.addOutput(stream)
        try session.commitConfiguration()

        let completion = StreamCompletion(deviceIDs: [camera.uniqueID, microphone.uniqueID], destinations: 1,
                                          records: recordingPath != nil)
        let events = DispatchQueue(label: "capture-bench.stream.events")
        session.setDelegate(completion, queue: events)
        // Before the start, so no event passes unheard.
        stream.setDelegate(completion, queue: events)
        defer {
            session.setDelegate(nil, queue: nil)
            stream.setDelegate(nil, queue: nil)
        }
        try session.startRunning()
        // Generous: 1080p veryfast runs at tens of frames per second even on a busy machine.
        let timeout = 120 + Double(inputs.frames)
        guard completion.waitForInputs(seconds: timeout) else {
            try? session.stopRunning()
            throw BenchError("\(label): the input files did not end within \(Int(timeout)) s")
        }
        try session.stopRunning()
        // The encoder drains what is queued, the destination sends it, the recording is made an
        // ordinary file: all of it is the job's.
        guard let outcome = completion.waitForOutput(seconds: 60) else {
            throw BenchError("\(label): the stream output did not end within 60 s of the session stopping")
        }
        let after = ResourceSnapshot.now()
        let peak = PeakMemory.peak(wasReset: wasReset)

        if let error = outcome.recordingError { throw BenchError("\(label): the recording failed: \(error)") }
        if let error = outcome.destinationErrors.first { throw BenchError("\(label): \(destination) gave up: \(error)") }
        let resources = RecordRun(wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                                  peakRSSBytes: peak.bytes, peakRSSScope: peak.scope, droppedSamples: stream.droppedSampleCount,
                                  rssAtSpawnBytes: nil)
        return StreamRun(resources: resources, framesEncoded: stream.encodedVideoFrameCount, destinations: stream.statistics,
                         incidents: outcome.incidents)
    }
}
