import Dispatch
import Foundation
import Testing
@testable import CaptureKit

/// The legacy still-image output's JPEG representation of any buffer, without a session.
@Suite(.tags(.childProcess), .excludable)
struct StillImageRepresentationTests {
    @Test func anyVideoBufferHasAJPEGRepresentation() throws {
        let frame = try TestPattern(width: 640, height: 480, pixelFormat: .yuyv422).render(frameIndex: 7)
        let buffer = SampleBuffer(media: .video(frame), presentationTimeStamp: .zero, duration: MediaTime(value: 1, timescale: 30))
        let jpeg = try #require(CaptureStillImageOutput.jpegStillImageDataRepresentation(buffer))
        let scratch = try PhotoScratch()
        let decoded = try PhotoTools.decodeYUV420(try scratch.write(jpeg, as: "any.jpg"), in: scratch)
        #expect(psnr(decoded.bytes, try expectedFrame(width: 640, height: 480, pixelFormat: .yuyv422, index: 7)) >= 35)
        let audio = SampleBuffer(media: .audio(try AudioBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16), frameCount: 480)),
                                 presentationTimeStamp: .zero, duration: MediaTime(value: 1, timescale: 100))
        #expect(CaptureStillImageOutput.jpegStillImageDataRepresentation(audio) == nil)
    }
}

extension RealTimeCaptureTests {
    /// The legacy still-image output, used the way ported iOS code (the seed's
    /// `captureStillImage`) uses it.
    @Suite(.serialized, .tags(.childProcess))
    struct StillImageOutputTests {
        @Test func portedStillImageFlowGivesAnOrientedJPEGOfTheFrame() async throws {
            let camera = try makePhotoCamera("still")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            // As the seed: preset, input, output with a JPEG codec, start, connection, orientation.
            let session = CaptureSession()
            session.beginConfiguration()
            if session.canSetSessionPreset(.vga640x480) { try session.setSessionPreset(.vga640x480) }
            try session.addInput(CaptureDeviceInput(device: camera))
            let stills = CaptureStillImageOutput()
            stills.outputSettings = CaptureStillImageOutput.OutputSettings(codec: .jpeg)
            #expect(session.canAddOutput(stills))
            try session.addOutput(stills)
            try session.commitConfiguration()
            try session.startRunning()
            defer { try? session.stopRunning() }

            let connection = try #require(stills.connection(with: .video))
            if connection.isVideoOrientationSupported { connection.videoOrientation = .portrait }
            let results = Recorder<SampleBuffer>()
            let failures = Recorder<CaptureError>()
            stills.captureStillImageAsynchronously(from: connection) { buffer, error in
                if let buffer { results.append(buffer) } else if let error { failures.append(error) }
            }
            #expect(await results.wait(forCount: 1, timeout: .seconds(30)))
            #expect(failures.count == 0)
            #expect(!stills.isCapturingStillImage)
            try session.stopRunning()

            let buffer = try #require(results.items.first)
            let jpeg = try #require(CaptureStillImageOutput.jpegStillImageDataRepresentation(buffer))
            #expect(buffer.pixelBuffer?.width == 640)
            let scratch = try PhotoScratch()
            let file = try scratch.write(jpeg, as: "still.jpg")
            #expect(try PhotoTools.exif(file, in: scratch)["Orientation"] as? Int == 6)
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: buffer.sequenceNumber)
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR \(match) dB")
        }

        @Test func unsupportedCodecStoppedSessionAndForeignConnectionFail() async throws {
            let camera = try makePhotoCamera("still errors")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let stills = CaptureStillImageOutput()
            let other = CaptureStillImageOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [stills, other])
            let connection = try #require(stills.connection(with: .video))

            var error = await #expect(throws: CaptureError.self) { _ = try await stills.captureStillImage(from: connection) }
            #expect(error?.code == .invalidState, "session not running")

            try await session.start()
            defer { try? session.stopRunning() }
            stills.outputSettings.codec = .png
            #expect(stills.availableImageDataCodecTypes == [.jpeg])
            error = await #expect(throws: CaptureError.self) { _ = try await stills.captureStillImage(from: connection) }
            #expect(error?.code == .unsupportedFormat)

            stills.outputSettings.codec = .jpeg
            let foreign = try #require(other.connection(with: .video))
            error = await #expect(throws: CaptureError.self) { _ = try await stills.captureStillImage(from: foreign) }
            #expect(error?.code == .invalidArgument)
            let still = try await stills.captureStillImage(from: connection)
            #expect(CaptureStillImageOutput.jpegStillImageDataRepresentation(still)?.prefix(2) == Data([0xFF, 0xD8]))
        }
    }
}
