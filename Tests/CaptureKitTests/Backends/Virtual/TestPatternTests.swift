import Testing
@testable import CaptureKit

/// The virtual camera's picture depends only on the frame index, so captured frames can be
/// predicted exactly.
@Suite(.excludable)
struct TestPatternTests {
    static let yuvFormats: [PixelFormat] = [.yuyv422, .nv12]

    @Test(arguments: yuvFormats)
    func renderIsDeterministicPerFrameIndex(_ pixelFormat: PixelFormat) throws {
        let pattern = try TestPattern(width: 320, height: 240, pixelFormat: pixelFormat)
        let a = try pattern.render(frameIndex: 42)
        let b = try pattern.render(frameIndex: 42)
        #expect(a !== b)
        #expect(a.hasSamePixels(as: b))
        #expect(a.packedBytes() == b.packedBytes())
        // Another pattern object with the same parameters draws the same frame.
        let twin = try TestPattern(width: 320, height: 240, pixelFormat: pixelFormat)
        #expect(try twin.render(frameIndex: 42).hasSamePixels(as: a))

        for other in [0, 41, 43, 1000] {
            #expect(!(try pattern.render(frameIndex: other)).hasSamePixels(as: a), "frame \(other) equals frame 42")
        }
        #expect(a.width == 320 && a.height == 240 && a.pixelFormat == pixelFormat)
        #expect(a.packedBytes().count == pixelFormat.packedFrameSize(width: 320, height: 240))
    }

    @Test func frameDurationChangesBurnedInTime() throws {
        let at30 = try TestPattern(width: 320, height: 240, pixelFormat: .nv12, frameDuration: frameDuration(fps: 30))
        let at25 = try TestPattern(width: 320, height: 240, pixelFormat: .nv12, frameDuration: frameDuration(fps: 25))
        // Frame 0 is at time 0 either way; frame 30 is at 1.000 s vs 1.200 s.
        #expect(try at30.render(frameIndex: 0).hasSamePixels(as: at25.render(frameIndex: 0)))
        #expect(!(try at30.render(frameIndex: 30).hasSamePixels(as: at25.render(frameIndex: 30))))
    }

    @Test func formatsDrawTheSamePicture() throws {
        // The luma of packed 4:2:2 and of NV12 carry the same picture.
        let packed = try TestPattern(width: 320, height: 240, pixelFormat: .yuyv422).render(frameIndex: 7)
        let planar = try TestPattern(width: 320, height: 240, pixelFormat: .nv12).render(frameIndex: 7)
        let packedLuma = packed.packedBytes().enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let planarLuma = Array(planar.packedBytes().prefix(320 * 240))
        #expect(packedLuma == planarLuma)
    }

    @Test func invalidPatternsAreRefused() {
        let rgb = #expect(throws: CaptureError.self) { try TestPattern(width: 320, height: 240, pixelFormat: .bgra) }
        #expect(rgb?.code == .unsupportedFormat)
        for (width, height) in [(63, 64), (64, 63), (321, 240), (0, 0)] {
            let error = #expect(throws: CaptureError.self) { try TestPattern(width: width, height: height, pixelFormat: .nv12) }
            #expect(error?.code == .invalidArgument, "\(width)x\(height)")
        }
    }
}

extension RealTimeCaptureTests {
    /// What the virtual camera delivers through a session is the pattern of each frame's index.
    @Suite(.serialized)
    struct CapturedTestPatternTests {
        @Test(arguments: TestPatternTests.yuvFormats)
        func capturedFramesEqualRenderedPattern(_ pixelFormat: PixelFormat) async throws {
            let camera = try makeTestCamera("pattern \(pixelFormat)") { $0.pixelFormats = [pixelFormat] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 6, timeout: .seconds(30)))
            try session.stopRunning()

            let duration = camera.activeVideoMinFrameDuration
            let pattern = try TestPattern(width: 320, height: 240, pixelFormat: pixelFormat, frameDuration: duration)
            let frames = recorder.samples.items
            // The picture follows the sequence number, which follows the timestamp exactly.
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(frames, frameDuration: duration)
            #expect(times.isExact, "\(times)")
            for received in frames {
                let captured = try #require(received.sample.pixelBuffer)
                #expect(captured.pixelFormat == pixelFormat)
                let expected = try pattern.render(frameIndex: Int(received.sequenceNumber))
                #expect(captured.hasSamePixels(as: expected), "frame \(received.sequenceNumber)")
            }
            // Consecutive captured frames differ (the pattern moves).
            let first = try #require(frames.first?.sample.pixelBuffer)
            let last = try #require(frames.last?.sample.pixelBuffer)
            #expect(!first.hasSamePixels(as: last))
        }

        @Test func cameraLoopsGivenFrames() async throws {
            // Two solid frames: black and white luma.
            var frames: [PixelBuffer] = []
            for luma: UInt8 in [16, 235] {
                let frame = try PixelBuffer(width: 128, height: 96, pixelFormat: .nv12)
                frame.withUnsafeMutableBytes(ofPlane: 0) { _ = $0.initializeMemory(as: UInt8.self, repeating: luma) }
                frame.withUnsafeMutableBytes(ofPlane: 1) { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
                frames.append(frame)
            }
            let camera = try makeTestCamera("frames") { $0.content = .frames(frames) }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            #expect(camera.formats.count == 1)
            #expect(camera.formats.first?.width == 128)
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 4, timeout: .seconds(30)))
            try session.stopRunning()
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            for received in recorder.samples.items {
                let expected = frames[Int(received.sequenceNumber % 2)]
                #expect(received.sample.pixelBuffer === expected, "handed out by reference, no copy")
            }
        }
    }
}
