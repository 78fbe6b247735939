import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// `CaptureConnection.audioChannels` measured on a session's audio connection.
    @Suite(.serialized)
    struct AudioLevelTests {
        @Test(arguments: [AudioFormat.SampleFormat.s16, .f32])
        func aSineAtMinusSixDBFSReadsMinusSixOnBothMeters(sampleFormat: AudioFormat.SampleFormat) async throws {
            var configuration = VirtualMicrophoneConfiguration(name: uniqueDeviceName("level mic"))
            configuration.level = -6
            let microphone = try CaptureDevice.makeVirtualMicrophone(configuration)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let stereo = AudioFormat(sampleRate: 48_000, channelCount: 2, sampleFormat: sampleFormat)
            let capture = try await ALSACapture.record(microphone, format: stereo, seconds: 0.3)
            capture.expectCaptureTimes()
            try #require(capture.channels.count == 2)
            for channel in capture.channels {
                #expect(abs(channel.averagePowerLevel + 6) < 0.5, "average \(channel.averagePowerLevel)")
                #expect(abs(channel.peakHoldLevel + 6) < 0.5, "peak hold \(channel.peakHoldLevel)")
            }
            // Independently of the meters: the samples delivered are that sine.
            let tone = ToneAnalyzer(buffers: capture.audioBuffers, channel: 1)
            #expect(abs(tone.rmsLevel + 6) < 0.1)
        }
    }
}

/// The meters' arithmetic: AES17 average, peak hold over one second of timestamps; and where
/// there are none.
struct CaptureAudioChannelTests {
    @Test func videoConnectionsHaveNoAudioChannels() throws {
        let camera = try makeTestCamera("levels camera")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let output = CaptureVideoDataOutput()
        _ = try makeSession(camera: camera, outputs: [output])
        let connection = try #require(output.connection(with: .video))
        #expect(connection.audioChannels.isEmpty)
    }

    @Test func silenceReadsTheMinimum() {
        let channel = CaptureAudioChannel()
        #expect(channel.averagePowerLevel == CaptureAudioChannel.minimumLevel)
        channel.update(meanSquare: 0, peak: 0, at: MediaTime(value: 0, timescale: 48_000))
        #expect(channel.averagePowerLevel == -160)
        #expect(channel.peakHoldLevel == -160)
    }

    @Test func fullScaleSquareReadsPlusThreeAverage() {
        let channel = CaptureAudioChannel()
        channel.update(meanSquare: 1, peak: 1, at: .zero)
        #expect(abs(channel.averagePowerLevel - 3.0103) < 0.001)
        #expect(channel.peakHoldLevel == 0)
    }

    @Test func peakIsHeldForOneSecondThenFalls() {
        let channel = CaptureAudioChannel()
        func at(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds, preferredTimescale: 48_000) }
        channel.update(meanSquare: 0.5, peak: 1, at: at(0))                 // 0 dBFS peak
        channel.update(meanSquare: 0.005, peak: 0.1, at: at(0.5))           // −20 dBFS
        #expect(channel.peakHoldLevel == 0, "held")
        #expect(abs(channel.averagePowerLevel + 20) < 0.01, "the average follows the latest buffer")
        channel.update(meanSquare: 0.005, peak: 0.1, at: at(1.0))
        #expect(abs(channel.peakHoldLevel + 20) < 0.01, "released after one second")
        channel.update(meanSquare: 0.125, peak: 0.5, at: at(1.1))
        #expect(abs(channel.peakHoldLevel + 6.0206) < 0.01, "a higher peak replaces the held one at once")
    }
}
