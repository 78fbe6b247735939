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

        /// A converted recording: what the delegate heard, in order, and when the session was
        /// asked to start.
        struct Recording {
            var log: [DeliveryEvent]
            var started: Int64
            var buffers: [ReceivedSample] { log.compactMap { if case .sample(let s) = $0 { s } else { nil } } }
            var audioBuffers: [AudioBuffer] { buffers.compactMap(\.sample.audioBuffer) }
        }

        /// Records `seconds` of audio from `microphone` in `format` through an output set up by
        /// `configure` (30 s at most: a deadline, not a rate).
        static func record(_ microphone: CaptureDevice, format: AudioFormat, seconds: Double,
                           configure: (CaptureAudioDataOutput) -> Void) async throws -> Recording {
            let match = try #require(microphone.formats.first { $0.audioFormat == format }, "\(microphone.localizedName) lacks \(format)")
            try microphone.lockForConfiguration()
            try microphone.setActiveFormat(match)
            microphone.unlockForConfiguration()
            let (session, _, recorder) = try ALSACapture.makeSession(microphone, configure: configure)
            let started = MonotonicClock.nanoseconds()
            try await session.start()
            defer { try? session.stopRunning() }
            let arrived = await recorder.samples.wait(timeout: .seconds(30)) { samples in
                samples.reduce(0.0) { $0 + $1.sample.duration.seconds } >= seconds
            }
            try session.stopRunning()
            #expect(arrived, "\(seconds) s of audio did not arrive")
            return Recording(log: recorder.log.items, started: started)
        }

        /// The virtual microphone's buffers: 480 frames at 48 kHz. Drops are reported in these.
        static let deviceBuffer = MediaTime(value: 480, timescale: 48_000)

        static func expectConverted(_ recording: Recording, to target: AudioFormat, frequency: Double,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
            let buffers = recording.buffers
            #expect(buffers.count > 10, "too few buffers: \(buffers.count)", sourceLocation: sourceLocation)
            for buffer in recording.audioBuffers {
                #expect(buffer.format == target, sourceLocation: sourceLocation)
            }
            for received in buffers {
                #expect(received.sample.presentationTimeStamp.timescale == Int32(target.sampleRate), sourceLocation: sourceLocation)
                #expect(received.sample.duration == MediaTime(value: Int64(received.sample.audioBuffer?.frameCount ?? 0),
                                                              timescale: Int32(target.sampleRate)), sourceLocation: sourceLocation)
            }
            // Converted buffers join exactly, frame for frame on the new rate, except where the
            // device's drops were reported.
            let accounting = AudioAccounting(recording.log, dropUnit: Self.deviceBuffer, slack: MediaTime(value: 1, timescale: 1_000))
            #expect(accounting.isComplete, "\(accounting)", sourceLocation: sourceLocation)
            // Still capture times on the monotonic clock: stamped after the start, delivered only
            // once captured. A wrong rate would stretch the frames past their arrival.
            if let first = buffers.first?.sample.presentationTimeStamp.nanoseconds {
                #expect(first >= recording.started - 1_000_000, "first buffer \(Double(recording.started - first) / 1e6) ms before the start",
                        sourceLocation: sourceLocation)
            }
            for received in buffers {
                let captured = (received.sample.presentationTimeStamp + received.sample.duration).nanoseconds ?? .max
                #expect(received.arrival >= captured - 500_000, "buffer at \(received.sample.presentationTimeStamp) delivered before it was captured",
                        sourceLocation: sourceLocation)
            }
            // The rate is really the new one: the tone is at its frequency when read at that rate.
            for channel in 0..<target.channelCount {
                let tone = ToneAnalyzer(buffers: recording.audioBuffers, channel: channel)
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
            let recording = try await Self.record(microphone, format: source, seconds: 1.2) { output in
                output.audioSettings = AudioTarget(sampleFormat: target.sampleFormat, sampleRate: target.sampleRate,
                                                   channelCount: target.channelCount)
            }
            Self.expectConverted(recording, to: target, frequency: frequency)
        }

        @Test func sampleFormatOnlyKeepsEverySample() async throws {
            let microphone = try Self.microphone(frequency: 440)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let recording = try await Self.record(microphone, format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16),
                                                  seconds: 0.2) { output in
                output.audioSettings = AudioTarget(sampleFormat: .s32)
            }
            // Same rate: nothing held back, so every gap is exactly the buffers reported dropped.
            let accounting = AudioAccounting(recording.log)
            #expect(accounting.isComplete, "\(accounting)")
            // s16 → s32 is exact: each sample is the virtual microphone's, shifted left 16 bits.
            let configuration = SineTone(frequency: 440, level: -6, format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16))
            for received in recording.buffers {
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
            #expect(await events.wait(for: .runtimeError(.invalidArgument), timeout: .seconds(30)))
            #expect(await plainRecorder.samples.wait(forCount: 20, timeout: .seconds(30)))
            try session.stopRunning()
            #expect(recorder.samples.count == 0, "nothing is delivered in a format nobody asked for")
            let reported = events.events.items.filter { $0 == .runtimeError(.invalidArgument) }.count
            #expect(reported == 1, "reported once, not per buffer")
            #expect(AudioAccounting(plainRecorder.log.items).isComplete, "\(AudioAccounting(plainRecorder.log.items))")
        }
    }
}
