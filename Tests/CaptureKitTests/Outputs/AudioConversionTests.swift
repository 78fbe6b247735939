import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// `CaptureAudioDataOutput.audioSettings`: buffers in the asked format, converted by
    /// libswresample, with the tone intact.
    @Suite(.serialized)
    struct AudioConversionTests {
        static func microphone(frequency: Double) throws -> CaptureDevice {
            var configuration = VirtualMicrophoneConfiguration(name: uniqueDeviceName("conversion mic"))
            configuration.level = -6
            configuration.frequency = frequency
            return try CaptureDevice.makeVirtualMicrophone(configuration)
        }

        static func expectConverted(_ capture: ALSACapture, to target: AudioFormat, frequency: Double,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
            for buffer in capture.audioBuffers {
                #expect(buffer.format == target, sourceLocation: sourceLocation)
            }
            for received in capture.buffers {
                #expect(received.sample.presentationTimeStamp.timescale == Int32(target.sampleRate), sourceLocation: sourceLocation)
            }
            capture.expectContinuousRealTime(sourceLocation: sourceLocation)
            // The rate is really the new one: the frames delivered per second of arrival time.
            if let first = capture.buffers.first, let last = capture.buffers.last, last.arrival > first.arrival {
                let frames = capture.buffers.dropFirst().reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) }
                let rate = Double(frames) / (Double(last.arrival - first.arrival) / 1e9)
                #expect(abs(rate / Double(target.sampleRate) - 1) < 0.1, "\(rate) frames/s", sourceLocation: sourceLocation)
            }
            for channel in 0..<target.channelCount {
                let tone = ToneAnalyzer(buffers: capture.audioBuffers, channel: channel)
                #expect(tone.sampleRate == target.sampleRate, sourceLocation: sourceLocation)
                #expect(abs(tone.dominantFrequency - frequency) <= 2, "channel \(channel): \(tone.dominantFrequency) Hz",
                        sourceLocation: sourceLocation)
                #expect(abs(tone.rmsLevel + 6) < 0.5, "channel \(channel): \(tone.rmsLevel) dBFS", sourceLocation: sourceLocation)
            }
        }

        /// (device format, target, tone): mono s16 48 kHz → stereo float 44.1 kHz at 440 Hz, and
        /// stereo float 48 kHz → mono s32 16 kHz at 1000 Hz.
        static let conversions: [(AudioFormat, AudioFormat, Double)] = [
            (AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16), AudioFormat(sampleRate: 44_100, channelCount: 2, sampleFormat: .f32), 440),
            (AudioFormat(sampleRate: 48_000, channelCount: 2, sampleFormat: .f32), AudioFormat(sampleRate: 16_000, channelCount: 1, sampleFormat: .s32), 1000),
        ]

        @Test(arguments: conversions)
        func formatRateAndChannelsChangeAndTheToneSurvives(source: AudioFormat, target: AudioFormat, frequency: Double) async throws {
            let microphone = try Self.microphone(frequency: frequency)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let capture = try await ALSACapture.record(microphone, format: source, seconds: 1.2) { output in
                output.audioSettings = AudioTarget(sampleFormat: target.sampleFormat, sampleRate: target.sampleRate,
                                                   channelCount: target.channelCount)
            }
            Self.expectConverted(capture, to: target, frequency: frequency)
        }

        @Test func sampleFormatOnlyKeepsEverySample() async throws {
            let microphone = try Self.microphone(frequency: 440)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let capture = try await ALSACapture.record(microphone, format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16),
                                                       seconds: 0.2) { output in
                output.audioSettings = AudioTarget(sampleFormat: .s32)
            }
            // s16 → s32 is exact: each sample is the virtual microphone's, shifted left 16 bits.
            let configuration = SineTone(frequency: 440, level: -6, format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16))
            for received in capture.buffers {
                let buffer = try #require(received.sample.audioBuffer)
                #expect(buffer.format == AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s32))
                let first = Int(received.sequenceNumber)
                buffer.withUnsafeBytes { raw in
                    let samples = raw.bindMemory(to: Int32.self)
                    for index in 0..<buffer.frameCount {
                        let expected = Int32(Int16(clamping: Int((configuration.value(at: first + index) * 32767).rounded()))) << 16
                        #expect(samples[index] == expected)
                    }
                }
            }
        }

        @Test func anUnusableTargetIsARuntimeError() async throws {
            let microphone = try Self.microphone(frequency: 440)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let (session, _, recorder) = try ALSACapture.makeSession(microphone) { $0.audioSettings = AudioTarget(channelCount: 0) }
            // A second output in the device's format shows that buffers kept flowing meanwhile.
            session.beginConfiguration()
            let plain = CaptureAudioDataOutput()
            let plainRecorder = SampleRecorder(label: "tests.conversion.plain")
            plainRecorder.attach(to: plain)
            try session.addOutput(plain)
            try session.commitConfiguration()
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await events.wait(for: .runtimeError(.invalidArgument)))
            #expect(await plainRecorder.samples.wait(forCount: 20))
            try session.stopRunning()
            #expect(recorder.samples.count == 0, "nothing is delivered in a format nobody asked for")
            let reported = events.events.items.filter { $0 == .runtimeError(.invalidArgument) }.count
            #expect(reported == 1, "reported once, not per buffer")
        }
    }
}
