import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The virtual microphone through a session: sample-exact, every buffer delivered or
    /// reported dropped, and the predicted tone.
    @Suite(.serialized)
    struct AudioContinuityTests {
        /// Sample `index` of the virtual microphone's default tone: 440 Hz at −12 dBFS peak.
        static func expectedSample(_ index: UInt64) -> Double {
            pow(10, -12.0 / 20) * sin(2 * Double.pi * 440 * Double(index) / 48_000)
        }

        @Test func fiveSecondsAreAccountedForAndSampleExact() async throws {
            let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("continuity mic")))
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            #expect(microphone.activeFormat.audioFormat == AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16))
            let session = CaptureSession()
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: microphone))
            let output = CaptureAudioDataOutput()
            let recorder = SampleRecorder(label: "tests.audio")
            recorder.attach(to: output)
            try session.addOutput(output)
            try session.commitConfiguration()
            #expect(output.connection(with: .audio) != nil)
            #expect(output.connection(with: .video) == nil)

            let started = MonotonicClock.nanoseconds()
            try await session.start()
            defer { try? session.stopRunning() }
            // 5 s of 10 ms buffers; a deadline, not a rate.
            #expect(await recorder.samples.wait(forCount: 501, timeout: .seconds(30)))
            try session.stopRunning()

            let log = recorder.log.items
            let statistics = output.statistics
            let buffers = log.compactMap { event -> ReceivedSample? in if case .sample(let s) = event { s } else { nil } }
            try #require(buffers.count >= 501)
            // Buffers join exactly, sample for sample, wherever no drop was reported; where one
            // was, the gap is exactly the buffers reported.
            let accounting = AudioAccounting(log)
            #expect(accounting.isComplete, "\(accounting)")
            #expect(statistics.dropped >= accounting.dropped)
            for buffer in buffers {
                let audio = try #require(buffer.sample.audioBuffer)
                #expect(audio.frameCount == 480)
                #expect(buffer.sample.duration == MediaTime(value: 480, timescale: 48_000))
                #expect(audio.duration == buffer.sample.duration)
                #expect(buffer.sample.formatDescription == .audio(AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)))
            }
            // Sequence numbers count samples, and timestamps are their capture times: a buffer
            // starts exactly its first sample's index after the first buffer's start.
            let first = try #require(buffers.first)
            for buffer in buffers {
                let samples = Int64(buffer.sequenceNumber) - Int64(first.sequenceNumber)
                #expect(buffer.sample.presentationTimeStamp == first.sample.presentationTimeStamp + MediaTime(value: samples, timescale: 48_000),
                        "buffer at sample \(buffer.sequenceNumber) is stamped \(buffer.sample.presentationTimeStamp)")
            }
            // On the monotonic clock: captured after the session was asked to start, and
            // delivered only once the whole buffer had been captured.
            let firstStart = try #require(first.sample.presentationTimeStamp.nanoseconds)
            #expect(firstStart >= started, "first buffer stamped \(Double(started - firstStart) / 1e6) ms before the start")
            for buffer in buffers {
                let captured = try #require((buffer.sample.presentationTimeStamp + buffer.sample.duration).nanoseconds)
                #expect(buffer.arrival >= captured - 500_000, "buffer at sample \(buffer.sequenceNumber) delivered before it was captured")
            }

            // The samples are the predicted sine, computed from each buffer's first-frame index.
            var peak: Float = 0
            for buffer in [buffers[0], buffers[1], buffers[137], buffers[500]] {
                let samples = try #require(buffer.sample.audioBuffer).floatSamples()
                #expect(samples.count == 480)
                var worst = 0.0
                for (offset, sample) in samples.enumerated() {
                    let expected = Self.expectedSample(buffer.sequenceNumber + UInt64(offset))
                    worst = max(worst, abs(Double(sample) - expected))
                    peak = max(peak, abs(sample))
                }
                // s16: within one quantisation step (plus the /32768 vs *32767 scaling).
                #expect(worst < 2.0 / 32_768, "buffer at sample \(buffer.sequenceNumber) is off by \(worst)")
            }
            #expect(abs(Double(peak) - 0.2512) < 0.002, "peak \(peak) ≈ -12 dBFS")
        }

        @Test func stereoFloatCarriesSameToneOnBothChannels() async throws {
            var configuration = VirtualMicrophoneConfiguration(name: uniqueDeviceName("stereo mic"))
            configuration.framesPerBuffer = 240
            let microphone = try CaptureDevice.makeVirtualMicrophone(configuration)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let stereo = try #require(microphone.formats.first { $0.audioFormat == AudioFormat(sampleRate: 48_000, channelCount: 2, sampleFormat: .f32) })
            try microphone.lockForConfiguration()
            try microphone.setActiveFormat(stereo)
            microphone.unlockForConfiguration()

            let session = CaptureSession()
            try session.addInput(CaptureDeviceInput(device: microphone))
            let output = CaptureAudioDataOutput()
            let stream = output.sampleBuffers
            try session.addOutput(output)
            let received = Recorder<SampleBuffer>()
            let reader = Task {
                for await sample in stream {
                    received.append(sample)
                    if received.count == 20 { break }
                }
            }
            defer { reader.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await received.wait(forCount: 20, timeout: .seconds(30)))
            let buffers = received.items
            let statistics = output.statistics
            try session.stopRunning()

            // A stream has no drop reports: buffers join exactly, or the gap is whole buffers
            // that were counted as dropped (by the time a later buffer was handed over).
            var missing: Int64 = 0
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                let gap = next.presentationTimeStamp - (previous.presentationTimeStamp + previous.duration)
                let samples = gap.convertScale(48_000).value
                #expect(gap == MediaTime(value: samples, timescale: 48_000) && samples >= 0 && samples % 240 == 0,
                        "after sample \(previous.sequenceNumber): a gap of \(gap)")
                #expect(Int64(next.sequenceNumber) - Int64(previous.sequenceNumber) == 240 + samples, "sequence numbers count samples")
                missing += samples / 240
            }
            #expect(Int64(statistics.dropped) >= missing, "\(missing) buffers missing, \(statistics.dropped) counted dropped")
            for buffer in buffers {
                let audio = try #require(buffer.audioBuffer)
                #expect(audio.format == AudioFormat(sampleRate: 48_000, channelCount: 2, sampleFormat: .f32))
                #expect(audio.frameCount == 240)
                #expect(audio.byteCount == 240 * 8)
                let samples = audio.floatSamples()
                try #require(samples.count == 480)
                var worst: Float = 0
                var channelsDiffer = 0
                for frame in 0..<audio.frameCount {
                    let expected = Float(Self.expectedSample(buffer.sequenceNumber + UInt64(frame)))
                    if samples[2 * frame] != samples[2 * frame + 1] { channelsDiffer += 1 }
                    worst = max(worst, abs(samples[2 * frame] - expected))
                }
                #expect(channelsDiffer == 0)
                #expect(worst < 1e-5, "buffer at sample \(buffer.sequenceNumber) is off by \(worst)")
            }
        }
    }
}

/// The virtual microphone unpaced, through a session: no wall clock involved, so it runs in
/// the fast loop.
@Suite(.excludable)
struct UnpacedAudioContinuityTests {
    /// The tone must be continuous for any frequency, not only whole hertz: sample i is
    /// sin(2π·f·i/rate). Unpaced, so more than one second of audio arrives at once.
    @Test func fractionalFrequencyToneIsContinuousAcrossSeconds() async throws {
        var configuration = VirtualMicrophoneConfiguration(name: uniqueDeviceName("fractional mic"))
        configuration.frequency = 440.5
        configuration.framesPerBuffer = 4_800
        configuration.pacing = .unpaced
        let microphone = try CaptureDevice.makeVirtualMicrophone(configuration)
        defer { CaptureDevice.removeVirtualDevice(microphone) }
        let session = CaptureSession()
        try session.addInput(CaptureDeviceInput(device: microphone))
        let output = CaptureAudioDataOutput()
        let recorder = SampleRecorder(label: "tests.fractional")
        recorder.attach(to: output)
        try session.addOutput(output)
        try await session.start()
        defer { try? session.stopRunning() }
        // Buffers covering samples beyond 48 000 (one second).
        #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.contains { $0.sequenceNumber >= 48_000 } })
        try session.stopRunning()
        // Unpaced, the queue may overflow; what it refuses is reported, in whole buffers.
        let accounting = AudioAccounting(recorder.log.items)
        #expect(accounting.isComplete, "\(accounting)")

        let amplitude = pow(10, -12.0 / 20)
        var worst = (error: 0.0, index: UInt64(0))
        for buffer in recorder.samples.items.prefix(20) {
            let samples = try #require(buffer.sample.audioBuffer).floatSamples()
            for (offset, sample) in samples.enumerated() {
                let index = buffer.sequenceNumber + UInt64(offset)
                let expected = amplitude * sin(2 * Double.pi * 440.5 * Double(index) / 48_000)
                let error = abs(Double(sample) - expected)
                if error > worst.error { worst = (error, index) }
            }
        }
        #expect(worst.error < 2.0 / 32_768, "sample \(worst.index) is off by \(worst.error)")
    }
}
