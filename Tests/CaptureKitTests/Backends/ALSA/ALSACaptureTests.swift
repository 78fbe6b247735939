import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The ALSA backend against real libasound PCMs: the daemon-less `file` plugin playing a
    /// tone `sox` made.
    @Suite(.serialized, .tags(.childProcess))
    struct ALSACaptureTests {
        @Test func filePluginToneArrivesInRealTimeWithItsFrequencyAndLevel() async throws {
            let pcm = try ALSAFixtures.toneMicrophone(frequency: 1000, level: -6)
            let microphone = try CaptureDevice.alsaMicrophone(pcm: pcm)
            #expect(microphone.uniqueID == "alsa:\(pcm)")
            #expect(microphone.alsaPCMName == pcm)
            #expect(microphone.deviceType == .microphone)
            #expect(microphone.hasMediaType(.audio))
            let mono = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)
            #expect(microphone.formats.first?.audioFormat == mono, "48 kHz mono s16 comes first")

            let capture = try await ALSACapture.record(microphone, format: mono, seconds: 1.5)
            capture.expectCaptureTimes()
            let tone = ToneAnalyzer(buffers: capture.audioBuffers)
            #expect(abs(tone.dominantFrequency - 1000) <= 2, "dominant \(tone.dominantFrequency) Hz")
            #expect(abs(tone.peakLevel + 6) < 0.5, "peak \(tone.peakLevel) dBFS")
            #expect(abs(tone.rmsLevel + 6) < 0.5, "RMS \(tone.rmsLevel) dBFS")
            // The connection's meters see the same −6 dBFS sine (see CaptureAudioChannel).
            try #require(capture.channels.count == 1)
            #expect(abs(capture.channels[0].averagePowerLevel + 6) < 0.5, "average \(capture.channels[0].averagePowerLevel)")
            #expect(abs(capture.channels[0].peakHoldLevel + 6) < 0.5, "peak hold \(capture.channels[0].peakHoldLevel)")
            let periods = Set(capture.audioBuffers.map(\.frameCount))
            #expect(periods == [480], "10 ms periods, got \(periods)")
        }

        @Test func aStalledClockPacedPCMReportsTheGapAsADrop() async throws {
            // The file plugin is paced on the monotonic clock like a live microphone, so a capture
            // thread that sleeps 500 ms leaves 500 ms without audio: reported, never silent, and
            // the timestamps jump over it (recordings fill it with silence). The 100 ms buffer
            // holds some of it; a loaded machine may make the sleep, and so the gap, longer (or
            // add one of its own: each is reported all the same).
            let pcm = try ALSAFixtures.toneMicrophone(frequency: 1000, level: -6)
            let stall = try await StalledCapture.run(pcm: pcm, stallMilliseconds: 500, expectDrop: true)
            #expect(stall.lostFrames > 48_000 * 35 / 100, "lost \(stall.lostFrames) frames")
            #expect(stall.drops.allSatisfy { $0.reason == .discontinuity })
            #expect(stall.gaps.contains { $0 > 0.35 }, "\(stall.gaps)")
            // Every gap is a reported loss, in 10 ms periods (up to one period more than lost).
            let accounting = AudioAccounting(stall.log, slack: MediaTime(value: 480, timescale: 48_000))
            #expect(accounting.isComplete, "\(accounting)")
            let lostInGaps = stall.gaps.reduce(0) { $0 + Int(($1 * 48_000).rounded()) }
            #expect(lostInGaps == stall.lostFrames, "the timestamps skip \(lostInGaps) frames, the stream lost \(stall.lostFrames)")
        }
    }
}

/// The ALSA backend's refusals, before anything is opened.
@Suite(.excludable)
struct ALSAErrorTests {
    @Test func unknownPCMIsATypedError() throws {
        #expect {
            _ = try CaptureDevice.alsaMicrophone(pcm: "capturekit_no_such_pcm")
        } throws: { error in
            (error as? CaptureError)?.code == .deviceNotFound
        }
    }

    /// Needs the sox-made tone PCM.
    @Test(.tags(.childProcess)) func formatThePCMRefusesIsATypedError() throws {
        let pcm = try ALSAFixtures.toneMicrophone(frequency: 1000, level: -6)
        let microphone = try CaptureDevice.alsaMicrophone(pcm: pcm)
        // The file plugin over null takes every format, so the refusal comes from the device's
        // own list: a format it does not have fails before anything is opened.
        let backend = try #require(microphone.backend as? ALSABackend)
        let odd = CaptureDevice.Format(audioFormat: AudioFormat(sampleRate: 12_345, channelCount: 3, sampleFormat: .s16))
        let sink = StreamSink(deliver: { _ in }, event: { _ in })
        #expect(throws: CaptureError.self) {
            _ = try backend.startStream(StreamConfiguration(format: odd, frameDuration: .invalid), sink: sink)
        }
    }
}

/// ALSA discovery and its decisions, without real time.
struct ALSADiscoveryTests {
    @Test func cardEnumerationOnlyNamesCaptureDevices() {
        // On this machine there may be no card at all; what is found must be a card's hw device.
        for device in ALSADeviceProvider.captureDevices() {
            #expect(device.pcmName.hasPrefix("hw:CARD="), "\(device.pcmName)")
        }
        for device in CaptureDevice.allDevices where device.uniqueID.hasPrefix(ALSABackend.uniqueIDPrefix) {
            #expect(device.deviceType == .microphone)
            #expect(!device.formats.isEmpty)
        }
    }
}
