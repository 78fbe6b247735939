import Foundation
import Testing
@testable import CaptureKit

/// Records an audio device through a session and an audio data output for a while: what the
/// ALSA (and level) tests look at.
struct ALSACapture {
    var buffers: [ReceivedSample]
    var drops: [DroppedFrame]
    var channels: [CaptureAudioChannel]

    var audioBuffers: [AudioBuffer] { buffers.compactMap(\.sample.audioBuffer) }

    /// Captures until `seconds` of audio arrived from `device` in `format` (its active format
    /// when nil); fails the test when they do not arrive within `seconds × 3 + 5` s.
    static func record(_ device: CaptureDevice, format: AudioFormat? = nil, seconds: Double,
                       configure: (CaptureAudioDataOutput) -> Void = { _ in }) async throws -> ALSACapture {
        if let format {
            let match = try #require(device.formats.first { $0.audioFormat == format }, "\(device.localizedName) lacks \(format)")
            try device.lockForConfiguration()
            try device.setActiveFormat(match)
            device.unlockForConfiguration()
        }
        let (session, output, recorder) = try makeSession(device, configure: configure)
        try await session.start()
        defer { try? session.stopRunning() }
        let wanted = seconds
        let arrived = await recorder.samples.wait(timeout: .seconds(seconds * 3 + 5)) { samples in
            samples.reduce(0.0) { $0 + $1.sample.duration.seconds } >= wanted
        }
        let channels = output.connection(with: .audio)?.audioChannels ?? []
        try session.stopRunning()
        #expect(arrived, "\(seconds) s of audio did not arrive from \(device.localizedName)")
        return ALSACapture(buffers: recorder.samples.items, drops: recorder.drops.items, channels: channels)
    }

    /// A configured (not yet running) session from `device` to an audio data output recorded by
    /// a ``SampleRecorder``.
    static func makeSession(_ device: CaptureDevice, configure: (CaptureAudioDataOutput) -> Void = { _ in }) throws
        -> (session: CaptureSession, output: CaptureAudioDataOutput, recorder: SampleRecorder) {
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        let output = CaptureAudioDataOutput()
        configure(output)
        let recorder = SampleRecorder(label: "tests.audio.\(device.uniqueID)")
        recorder.attach(to: output)
        try session.addOutput(output)
        try session.commitConfiguration()
        return (session, output, recorder)
    }

    /// Checks that consecutive buffers join exactly (no gap, no overlap) and run in real time.
    func expectContinuousRealTime(sourceLocation: SourceLocation = #_sourceLocation) {
        for (previous, next) in zip(buffers, buffers.dropFirst()) {
            #expect(next.sample.presentationTimeStamp == previous.sample.presentationTimeStamp + previous.sample.duration,
                    "gap or overlap after \(previous.sample.presentationTimeStamp.seconds) s", sourceLocation: sourceLocation)
        }
        guard let first = buffers.first, let last = buffers.last, buffers.count > 10 else {
            Issue.record("too few buffers: \(buffers.count)", sourceLocation: sourceLocation)
            return
        }
        let span = (last.sample.presentationTimeStamp - first.sample.presentationTimeStamp).seconds
        let arrivals = Double(last.arrival - first.arrival) / 1e9
        #expect(abs(span - arrivals) < 0.1, "timestamps span \(span) s but arrivals \(arrivals) s", sourceLocation: sourceLocation)
        // Capture times are in the past when delivered, and not by more than the PCM buffer
        // plus scheduling (the stream delivers each period as it is read).
        let latency = Double(last.arrival) / 1e9 - (last.sample.presentationTimeStamp + last.sample.duration).seconds
        #expect(latency > -0.005 && latency < 0.3, "delivery latency \(latency) s", sourceLocation: sourceLocation)
    }
}
