import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The virtual microphone through a session: sample-exact, gapless, and the predicted tone.
    @Suite(.serialized)
    struct AudioContinuityTests {
        /// Sample `index` of the virtual microphone's default tone: 440 Hz at −12 dBFS peak.
        static func expectedSample(_ index: UInt64) -> Double {
            pow(10, -12.0 / 20) * sin(2 * Double.pi * 440 * Double(index) / 48_000)
        }

        @Test func fiveSecondsAreContinuousAndSampleExact() async throws {
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

            try await session.start()
            defer { try? session.stopRunning() }
            // 5 s of 10 ms buffers.
            #expect(await recorder.samples.wait(forCount: 501, timeout: .seconds(20)))
            try session.stopRunning()

            let buffers = Array(recorder.samples.items.prefix(501))
            try #require(buffers.count == 501)
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                let expected = previous.sample.presentationTimeStamp + previous.sample.duration
                #expect(next.sample.presentationTimeStamp == expected,
                        "gap or overlap after sample \(previous.sequenceNumber): \(next.sample.presentationTimeStamp) != \(expected)")
                #expect(next.sequenceNumber == previous.sequenceNumber + UInt64(previous.sample.audioBuffer?.frameCount ?? 0))
            }
            for buffer in buffers {
                let audio = try #require(buffer.sample.audioBuffer)
                #expect(audio.frameCount == 480)
                #expect(buffer.sample.duration == MediaTime(value: 480, timescale: 48_000))
                #expect(audio.duration == buffer.sample.duration)
                #expect(buffer.sample.formatDescription == .audio(AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)))
            }

            // Real time: the frames delivered match the time that passed on the monotonic clock,
            // within a few buffers (scheduling jitter of the first and the last delivery).
            let frames = buffers.dropFirst().reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) }
            let elapsed = Double(buffers.last!.arrival - buffers.first!.arrival) / 1e9
            let expectedFrames = elapsed * 48_000
            #expect(abs(Double(frames) - expectedFrames) <= 5 * 480,
                    "\(frames) frames in \(elapsed) s (expected \(expectedFrames))")
            #expect(output.statistics.dropped == 0)
            #expect(recorder.drops.count == 0)

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
            #expect(await recorder.samples.wait { $0.contains { $0.sequenceNumber >= 48_000 } })
            try session.stopRunning()

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
            #expect(await received.wait(forCount: 20))

            let buffers = received.items
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                #expect(next.presentationTimeStamp == previous.presentationTimeStamp + previous.duration)
            }
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
