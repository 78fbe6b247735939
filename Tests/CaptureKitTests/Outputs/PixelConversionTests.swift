import Testing
@testable import CaptureKit

/// Frames convert to the pixel format and size asked for, once per frame and target: what the
/// video data outputs use, checked without a session.
@Suite(.excludable)
struct PixelConversionTests {
    /// B, G, R, A of a pixel of a BGRA buffer.
    static func bgra(_ buffer: PixelBuffer, x: Int, y: Int) -> (b: Int, g: Int, r: Int, a: Int) {
        buffer.withUnsafeBytes(ofPlane: 0) { bytes in
            let offset = y * buffer.bytesPerRow(ofPlane: 0) + x * 4
            return (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]), Int(bytes[offset + 3]))
        }
    }

    /// Y, U, V of a pixel of an NV12 buffer.
    static func nv12(_ buffer: PixelBuffer, x: Int, y: Int) -> TestPattern.YUV {
        let luma = buffer.withUnsafeBytes(ofPlane: 0) { $0[y * buffer.bytesPerRow(ofPlane: 0) + x] }
        let (u, v) = buffer.withUnsafeBytes(ofPlane: 1) { bytes in
            let offset = (y / 2) * buffer.bytesPerRow(ofPlane: 1) + (x / 2) * 2
            return (bytes[offset], bytes[offset + 1])
        }
        return TestPattern.YUV(y: luma, u: u, v: v)
    }

    /// A pixel of `source` (NV12) well inside an area of `colour`: its neighbours 4 pixels
    /// left and right and one row up and down have the same colour, so chroma subsampling and
    /// interpolation do not matter there.
    static func interiorPixel(of colour: TestPattern.YUV, in source: PixelBuffer, rows: Range<Int>, columns: Range<Int>) -> (x: Int, y: Int)? {
        func matches(_ x: Int, _ y: Int) -> Bool {
            guard x >= 0, x < source.width, y >= 0, y < source.height else { return false }
            let p = nv12(source, x: x, y: y)
            return p.y == colour.y && p.u == colour.u && p.v == colour.v
        }
        for y in rows {
            for x in columns where (x - 4...x + 4).allSatisfy({ matches($0, y) }) && matches(x, y - 1) && matches(x, y + 1) {
                return (x, y)
            }
        }
        return nil
    }

    /// Checks a BGRA frame's colours against the NV12 test pattern frame it came from: the
    /// black text box at the top left (drawn last, over bars and bouncing box), and the inside
    /// of the green bar.
    static func expectPlausibleColours(_ converted: PixelBuffer, source: PixelBuffer, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(converted.pixelFormat == .bgra, sourceLocation: sourceLocation)
        let black = interiorPixel(of: TestPattern.yuv(r: 0, g: 0, b: 0), in: source, rows: 0..<24, columns: 0..<24)
        #expect(black != nil, "no black text box at the top left", sourceLocation: sourceLocation)
        if case let (x, y)? = black {
            let pixel = bgra(converted, x: x, y: y)
            #expect(pixel.b < 16 && pixel.g < 16 && pixel.r < 16, "(\(x),\(y)) is \(pixel), not black", sourceLocation: sourceLocation)
            #expect(pixel.a == 255, sourceLocation: sourceLocation)
        }
        // Green bar (0, 191, 0), searched between the text and the bottom of the bars (the
        // bouncing box may hide it in some rows).
        let green = interiorPixel(of: TestPattern.yuv(r: 0, g: 191, b: 0), in: source,
                                  rows: source.height / 4..<source.height * 2 / 3 - 2, columns: 0..<source.width)
        #expect(green != nil, "no green bar", sourceLocation: sourceLocation)
        if case let (x, y)? = green {
            let pixel = bgra(converted, x: x, y: y)
            #expect(pixel.g > pixel.r + 100 && pixel.g > pixel.b + 100, "(\(x),\(y)) is \(pixel), not green", sourceLocation: sourceLocation)
            #expect(abs(pixel.g - 191) < 12, "green level \(pixel.g)", sourceLocation: sourceLocation)
        }
    }

    @Test func convertedIsSharedPerTarget() throws {
        let frame = try TestPattern(width: 320, height: 240, pixelFormat: .nv12).render(frameIndex: 5)
        let sample = SampleBuffer(media: .video(frame), presentationTimeStamp: MediaTime(value: 5, timescale: 30),
                                  duration: frameDuration(fps: 30), sequenceNumber: 5)
        #expect(try sample.converted(to: VideoTarget()) === sample, "nothing to change")
        #expect(try sample.converted(to: VideoTarget(pixelFormat: .nv12, width: 320, height: 240)) === sample)

        let bgra = try sample.converted(to: VideoTarget(pixelFormat: .bgra))
        #expect(bgra !== sample)
        #expect(bgra.formatDescription == .video(width: 320, height: 240, pixelFormat: .bgra))
        #expect(bgra.presentationTimeStamp == sample.presentationTimeStamp)
        #expect(bgra.duration == sample.duration)
        #expect(bgra.sequenceNumber == 5)
        // Asking again, also spelled out in full, gives the same object: converted once.
        #expect(try sample.converted(to: VideoTarget(pixelFormat: .bgra)) === bgra)
        #expect(try sample.converted(to: VideoTarget(pixelFormat: .bgra, width: 320, height: 240)) === bgra)
        PixelConversionTests.expectPlausibleColours(try #require(bgra.pixelBuffer), source: frame)

        let small = try sample.converted(to: VideoTarget(width: 160, height: 120))
        #expect(small.formatDescription == .video(width: 160, height: 120, pixelFormat: .nv12))
        #expect(small !== bgra)
    }

    @Test func audioCannotBeConverted() throws {
        let audio = try AudioBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16), frameCount: 480)
        let sample = SampleBuffer(media: .audio(audio), presentationTimeStamp: .zero, duration: audio.duration)
        let error = #expect(throws: CaptureError.self) { try sample.converted(to: VideoTarget(pixelFormat: .bgra)) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func convertedBackToYUVKeepsThePicture() throws {
        // NV12 → YUYV → NV12 at the same size must keep luma exactly (no scaling, same range).
        let frame = try TestPattern(width: 320, height: 240, pixelFormat: .nv12).render(frameIndex: 9)
        let sample = SampleBuffer(media: .video(frame), presentationTimeStamp: .zero, duration: frameDuration(fps: 30))
        let packed = try sample.converted(to: VideoTarget(pixelFormat: .yuyv422))
        let back = try packed.converted(to: VideoTarget(pixelFormat: .nv12))
        let original = frame.packedBytes().prefix(320 * 240)
        let roundTrip = try #require(back.pixelBuffer).packedBytes().prefix(320 * 240)
        #expect(original == roundTrip)
    }
}

extension RealTimeCaptureTests {
    /// Video data outputs deliver frames converted as asked, shared between outputs, while a
    /// session runs.
    @Suite(.serialized)
    struct PixelConversionSessionTests {
        @Test func outputsReceiveConvertedAndSharedFrames() async throws {
            let camera = try makeTestCamera("conversion") { config in
                config.sizes = [.init(width: 640, height: 480)]
                config.pixelFormats = [.nv12]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let first = CaptureVideoDataOutput()
            let second = CaptureVideoDataOutput()
            let scaled = CaptureVideoDataOutput()
            let native = CaptureVideoDataOutput()
            first.videoSettings = VideoTarget(pixelFormat: .bgra)
            second.videoSettings = VideoTarget(pixelFormat: .bgra)
            scaled.videoSettings = VideoTarget(width: 320, height: 240)
            #expect(first.videoSettings == VideoTarget(pixelFormat: .bgra))
            #expect(first.availableVideoPixelFormats.contains(.bgra))
            let firstRecorder = SampleRecorder(label: "tests.bgra.1")
            let secondRecorder = SampleRecorder(label: "tests.bgra.2")
            let scaledRecorder = SampleRecorder(label: "tests.scaled")
            let nativeRecorder = SampleRecorder(label: "tests.native")
            firstRecorder.attach(to: first)
            secondRecorder.attach(to: second)
            scaledRecorder.attach(to: scaled)
            nativeRecorder.attach(to: native)
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [first, second, scaled, native])
            try await session.start()
            defer { try? session.stopRunning() }
            let recorders = [firstRecorder, secondRecorder, scaledRecorder, nativeRecorder]
            for recorder in recorders {
                #expect(await recorder.samples.wait(forCount: 8, timeout: .seconds(30)))
            }
            // Each output may drop different late frames on a loaded machine, so wait (a
            // deadline, not a rate) until a few frames have reached both BGRA outputs.
            let sharedCount: @Sendable ([ReceivedSample]) -> Int = { firstItems in
                Set(firstItems.map(\.sequenceNumber)).intersection(secondRecorder.samples.items.map(\.sequenceNumber)).count
            }
            #expect(await firstRecorder.samples.wait(timeout: .seconds(30)) { sharedCount($0) >= 4 })
            try session.stopRunning()

            // Every frame delivered or reported dropped, on every output, with exact timestamps.
            for recorder in recorders {
                #expect(recorder.accounting.isComplete, "\(recorder.queue.label): \(recorder.accounting)")
                let times = FrameTimestamps(recorder.samples.items, frameDuration: camera.activeVideoMinFrameDuration)
                #expect(times.isExact, "\(recorder.queue.label): \(times)")
            }

            let firstFrames = firstRecorder.samples.items
            let secondFrames = secondRecorder.samples.items
            #expect(firstFrames.allSatisfy { $0.sample.formatDescription == .video(width: 640, height: 480, pixelFormat: .bgra) })
            #expect(secondFrames.allSatisfy { $0.sample.formatDescription == .video(width: 640, height: 480, pixelFormat: .bgra) })
            #expect(scaledRecorder.samples.items.allSatisfy { $0.sample.formatDescription == .video(width: 320, height: 240, pixelFormat: .nv12) })
            #expect(nativeRecorder.samples.items.allSatisfy { $0.sample.formatDescription == .video(width: 640, height: 480, pixelFormat: .nv12) })

            // The same frame reaches both BGRA outputs as the very same converted buffer.
            let secondBySequence = Dictionary(secondFrames.map { ($0.sequenceNumber, $0) }, uniquingKeysWith: { a, _ in a })
            var shared = 0
            for frame in firstFrames {
                guard let other = secondBySequence[frame.sequenceNumber] else { continue }
                shared += 1
                #expect(frame.sample.pixelBuffer === other.sample.pixelBuffer, "frame \(frame.sequenceNumber) was converted twice")
                #expect(frame.sample === other.sample)
            }
            #expect(shared >= 4, "only \(shared) frames reached both outputs")

            // Colours: compare with the NV12 source of the same frame.
            let pattern = try TestPattern(width: 640, height: 480, pixelFormat: .nv12, frameDuration: camera.activeVideoMinFrameDuration)
            for frame in firstFrames.prefix(3) {
                let source = try pattern.render(frameIndex: Int(frame.sequenceNumber))
                PixelConversionTests.expectPlausibleColours(try #require(frame.sample.pixelBuffer), source: source)
            }
            // The native output got the unconverted frame, identical to the pattern.
            let nativeFrame = try #require(nativeRecorder.samples.items.first)
            #expect(try #require(nativeFrame.sample.pixelBuffer).hasSamePixels(as: pattern.render(frameIndex: Int(nativeFrame.sequenceNumber))))
        }

        @Test func videoSettingsChangeTakesEffectWhileRunning() async throws {
            let camera = try makeTestCamera("settings change")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.last?.sample.pixelBuffer?.pixelFormat == .nv12 })
            output.videoSettings = VideoTarget(pixelFormat: .yuv420p, width: 160, height: 120)
            #expect(await recorder.samples.wait(timeout: .seconds(30)) {
                $0.last?.sample.formatDescription == .video(width: 160, height: 120, pixelFormat: .yuv420p)
            })
            try session.stopRunning()
            let converted = try #require(recorder.samples.items.last?.sample.pixelBuffer)
            #expect(converted.planeCount == 3)
            #expect(converted.rowCount(ofPlane: 1) == 60)
            #expect(converted.bytesPerRow(ofPlane: 1) >= 80)
            // The change loses no frame and moves no timestamp.
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: camera.activeVideoMinFrameDuration)
            #expect(times.isExact, "\(times)")
        }

        @Test func impossibleTargetReportsRuntimeError() async throws {
            let camera = try makeTestCamera("impossible target")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            output.videoSettings = VideoTarget(width: 0, height: 0)
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await events.wait(for: .runtimeError(.invalidArgument), timeout: .seconds(30)))
            #expect(recorder.samples.count == 0, "nothing deliverable")
            #expect(session.state == .running, "an output's failure does not stop the session")
            // Fixing the settings makes frames flow.
            output.videoSettings = VideoTarget(width: 160, height: 120)
            #expect(await recorder.samples.wait(forCount: 2, timeout: .seconds(30)))
            try session.stopRunning()
            #expect(recorder.samples.items.allSatisfy { $0.width == 160 && $0.height == 120 })
            // From the first frame that could be converted on, every frame is accounted for.
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }
    }
}
