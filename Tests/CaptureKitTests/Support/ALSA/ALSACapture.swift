import Foundation
import Testing
@testable import CaptureKit

/// Records an audio device through a session and an audio data output for a while: what the
/// ALSA (and level) tests look at.
struct ALSACapture {
    var buffers: [ReceivedSample]
    var drops: [DroppedFrame]
    var channels: [CaptureAudioChannel]
    /// Samples and drops in the order the delegate heard them.
    var log: [DeliveryEvent]

    var audioBuffers: [AudioBuffer] { buffers.compactMap(\.sample.audioBuffer) }

    /// Captures until `seconds` of audio arrived from `device` in `format` (its active format
    /// when nil); fails the test when they do not arrive within `seconds × 3 + 30` s.
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
        let arrived = await recorder.samples.wait(timeout: .seconds(seconds * 3 + 30)) { samples in
            samples.reduce(0.0) { $0 + $1.sample.duration.seconds } >= wanted
        }
        let channels = output.connection(with: .audio)?.audioChannels ?? []
        try session.stopRunning()
        #expect(arrived, "\(seconds) s of audio did not arrive from \(device.localizedName)")
        return ALSACapture(buffers: recorder.samples.items, drops: recorder.drops.items, channels: channels, log: recorder.log.items)
    }

    /// A configured (not yet running) session from `device` to an audio data output recorded by
    /// a ``SampleRecorder`` (and to `outputs`).
    static func makeSession(_ device: CaptureDevice, outputs: [CaptureOutput] = [], configure: (CaptureAudioDataOutput) -> Void = { _ in }) throws
        -> (session: CaptureSession, output: CaptureAudioDataOutput, recorder: SampleRecorder) {
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        let output = CaptureAudioDataOutput()
        configure(output)
        let recorder = SampleRecorder(label: "tests.audio.\(device.uniqueID)")
        recorder.attach(to: output)
        try session.addOutput(output)
        for extra in outputs { try session.addOutput(extra) }
        try session.commitConfiguration()
        return (session, output, recorder)
    }

    /// Checks the timing promise on what was captured, which no load can break: every buffer's
    /// time is its capture time. Consecutive buffers join exactly unless a loss was reported
    /// between them (ALSA reports losses in periods, so a gap may fall short of its report by up
    /// to one period), and none arrived before its last frame was captured, so the stream never
    /// ran ahead of real time. How late buffers arrive, and how many were lost, is the machine's
    /// business.
    func expectCaptureTimes(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let period = buffers.first?.sample.duration, buffers.count > 10 else {
            Issue.record("too few buffers: \(buffers.count)", sourceLocation: sourceLocation)
            return
        }
        let accounting = AudioAccounting(log, slack: period)
        #expect(accounting.isComplete, "\(accounting)", sourceLocation: sourceLocation)
        // (index, milliseconds before its capture ended)
        let early = buffers.enumerated().compactMap { index, buffer -> (Int, Double)? in
            guard let end = (buffer.sample.presentationTimeStamp + buffer.sample.duration).nanoseconds, buffer.arrival < end else { return nil }
            return (index, Double(end - buffer.arrival) / 1e6)
        }
        #expect(early.count == 0, "\(early.count) of \(buffers.count) buffers arrived before their capture ended (index, ms): \(early.prefix(8))",
                sourceLocation: sourceLocation)
    }
}
