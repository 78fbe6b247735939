import CaptureKit
import Testing

// The audio API of issue 6 through `import CaptureKit` alone: levels, audio settings, ALSA.

@Suite("Public audio API", .serialized, .timeLimit(.minutes(1)))
struct AudioPublicAPITests {
    @Test func levelsAndConversionFromTheVirtualMicrophone() async throws {
        var configuration = VirtualMicrophoneConfiguration(name: "Public API level mic")
        configuration.level = -20
        let microphone = try CaptureDevice.makeVirtualMicrophone(configuration)
        defer { CaptureDevice.removeVirtualDevice(microphone) }
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: microphone))
        let output = CaptureAudioDataOutput()
        #expect(output.availableAudioSampleFormats == [.s16, .s32, .f32])
        output.audioSettings = AudioTarget(sampleFormat: .f32, sampleRate: 16_000, channelCount: 2)
        let buffers = output.sampleBuffers
        try session.addOutput(output)
        try session.commitConfiguration()
        try await session.start()
        let received = await first(10, of: buffers)
        try session.stopRunning()
        #expect(received.count == 10)
        for sample in received {
            #expect(sample.audioBuffer?.format == AudioFormat(sampleRate: 16_000, channelCount: 2, sampleFormat: .f32))
        }
        let channels = try #require(output.connection(with: .audio)).audioChannels
        #expect(channels.count == 1, "levels are measured on the device's audio, before conversion")
        #expect(abs((channels.first?.averagePowerLevel ?? 0) + 20) < 0.5)
        #expect(abs((channels.first?.peakHoldLevel ?? 0) + 20) < 0.5)
        #expect(CaptureAudioChannel.minimumLevel == -160)
    }

    @Test func alsaNamesAreTypedErrors() {
        do throws(CaptureError) {
            _ = try CaptureDevice.alsaMicrophone(pcm: "capturekit_public_api_missing")
            Issue.record("an unknown ALSA PCM opened")
        } catch {
            #expect(error.code == .deviceNotFound)
            #expect(error.deviceID == "alsa:capturekit_public_api_missing")
        }
    }
}
