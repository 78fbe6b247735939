import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// ALSA's `pulse` plugin (libasound2-plugins) in front of real sound servers started by the
    /// test: the path a program that only speaks ALSA takes on a desktop.
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct ALSAPulsePluginTests {
        @Test func pulseAudioSineSourceThroughThePlugin() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPulseAudio { _ in
                let microphone = try CaptureDevice.alsaMicrophone(pcm: "pulse:sine440")
                let mono = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)
                let capture = try await ALSACapture.record(microphone, format: mono, seconds: 1.5)
                let tone = ToneAnalyzer(buffers: capture.audioBuffers)
                #expect(abs(tone.dominantFrequency - 440) <= 2, "dominant \(tone.dominantFrequency) Hz")
                #expect(tone.peakLevel > -30, "a tone, not silence: peak \(tone.peakLevel) dBFS")
                // PulseAudio's sine source delivers about a second at once; the stream paces it.
                for (previous, next) in zip(capture.buffers, capture.buffers.dropFirst()) {
                    #expect(next.sample.presentationTimeStamp >= previous.sample.presentationTimeStamp + previous.sample.duration)
                }
            }
        }

        @Test func pipeWireToneInRealTimeWithItsLevel() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(toneFrequency: 1000) { _ in
                let microphone = try CaptureDevice.alsaMicrophone(pcm: "pulse")
                let mono = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)
                let capture = try await ALSACapture.record(microphone, format: mono, seconds: 2)
                // On the stretches without the source's dropouts (pw-cat misses cycles under load).
                let tone = ToneAnalyzer(buffers: capture.audioBuffers)
                let frequency = try #require(tone.dropoutFreeFrequency, "no 50 ms without a dropout")
                #expect(abs(frequency - 1000) <= 2, "dominant \(frequency) Hz")
                #expect(abs(tone.peakLevel + 6) < 0.5, "peak \(tone.peakLevel) dBFS")
                #expect(abs((tone.dropoutFreeRMSLevel ?? 0) + 6) < 0.5, "RMS \(tone.dropoutFreeRMSLevel ?? 0) dBFS (whole capture \(tone.rmsLevel))")
                // The meters: the peak held over the last second is the tone's; the average is
                // the latest buffer's, which is one of the last delivered (with a dropout, if the
                // source had one there).
                try #require(capture.channels.count == 1)
                #expect(abs(capture.channels[0].peakHoldLevel + 6) < 0.5)
                let recent = capture.audioBuffers.suffix(5).map { ToneAnalyzer(samples: $0.floatSamples(), sampleRate: 48_000).rmsLevel }
                let average = Double(capture.channels[0].averagePowerLevel)
                #expect(recent.contains { abs($0 - average) < 0.5 }, "average \(average) dBFS, last buffers \(recent)")
                capture.expectCaptureTimes()
            }
        }

        @Test func aStallIsAbsorbedByTheServersBuffer() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(toneFrequency: 440) { _ in
                // The plugin's stream buffers seconds in the server, so a capture thread that
                // sleeps 500 ms loses nothing: no drop, no gap, the backlog is read at once.
                let stall = try await StalledCapture.run(pcm: "pulse", stallMilliseconds: 500, expectDrop: false)
                #expect(stall.lostFrames == 0)
                #expect(stall.gaps.isEmpty, "\(stall.gaps)")
                #expect(stall.drops.isEmpty)
            }
        }
    }
}
