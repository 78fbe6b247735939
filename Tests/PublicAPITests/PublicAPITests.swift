import CaptureKit
import Testing

// Imports only `CaptureKit` (no @testable, no Foundation, no C module): if any C type leaked
// into the public API, or a public member needed one, this file would not compile.

/// Collects the first `count` elements of `stream`, giving up after `timeout`.
func first<Element: Sendable>(_ count: Int, of stream: AsyncStream<Element>, timeout: Duration = .seconds(15)) async -> [Element] {
    await withTaskGroup(of: [Element]?.self) { group in
        group.addTask {
            var collected: [Element] = []
            for await element in stream {
                collected.append(element)
                if collected.count == count { break }
            }
            return collected
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result ?? []
    }
}

@Suite("Public API", .serialized, .timeLimit(.minutes(1)))
struct PublicAPITests {
    @Test func discovery() throws {
        let camera = try #require(CaptureDevice.default(for: .video))
        let microphone = try #require(CaptureDevice.default(for: .audio))
        #expect(camera.hasMediaType(.video))
        #expect(microphone.hasMediaType(.audio))
        #expect(!camera.formats.isEmpty)
        #expect(!microphone.formats.isEmpty)
        let cameras = CaptureDevice.DiscoverySession(deviceTypes: CaptureDevice.DeviceType.allCases, mediaType: .video, position: .unspecified).devices
        #expect(cameras.contains(camera))
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) == camera)
        #expect(CaptureDevice.authorizationStatus(for: .audio) == .authorized)
        if camera.isVirtual {
            #expect(camera.uniqueID == "virtual-camera")
            #expect(camera.formats.contains { $0.width == 640 && $0.height == 480 && $0.pixelFormat == .nv12 })
        }
    }

    @Test func mediaTime() {
        let frame = MediaTime(value: 1, timescale: 30)
        let t = frame * 45
        #expect(t.seconds == 1.5)
        #expect(t.convertScale(1000).value == 1500)
        #expect(t.convertScale(7, method: .roundTowardZero).value == 10)
        #expect(frame + MediaTime(value: 1, timescale: 25) == MediaTime(value: 11, timescale: 150))
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 2, timescale: 4))
        #expect(MediaTime(seconds: 0.5, preferredTimescale: 600).value == 300)
        #expect(MediaTime.negativeInfinity < MediaTime.zero)
        #expect(MediaTime.zero < MediaTime.indefinite)
        #expect(MediaTime.indefinite < MediaTime.positiveInfinity)
        #expect(MediaTime.positiveInfinity < MediaTime.invalid)
        #expect((MediaTime.positiveInfinity + MediaTime.negativeInfinity).isValid == false)
        #expect(frame.multiplied(by: 3, dividedBy: 1) == MediaTime(value: 1, timescale: 10))
        #expect(MediaTime.compare(frame, t) == -1)
        #expect(frame.flags.contains(.valid))
    }

    @Test func pixelBufferPlanes() throws {
        var filled: [(plane: Int, count: Int, bytesPerRow: Int)] = []
        let buffer = try PixelBuffer(width: 320, height: 240, pixelFormat: .nv12) { plane, bytes, bytesPerRow in
            filled.append((plane, bytes.count, bytesPerRow))
            _ = bytes.initializeMemory(as: UInt8.self, repeating: plane == 0 ? 200 : 128)
        }
        #expect(buffer.planeCount == 2)
        #expect(buffer.rowCount(ofPlane: 0) == 240)
        #expect(buffer.rowCount(ofPlane: 1) == 120)
        #expect(buffer.bytesPerRow(ofPlane: 0) >= 320)
        #expect(filled.map(\.plane) == [0, 1], "every plane once, in order")
        #expect(filled.map(\.bytesPerRow) == [buffer.bytesPerRow(ofPlane: 0), buffer.bytesPerRow(ofPlane: 1)])
        #expect(filled.map(\.count) == [buffer.bytesPerRow(ofPlane: 0) * 240, buffer.bytesPerRow(ofPlane: 1) * 120])
        let luma = buffer.withUnsafeBytes(ofPlane: 0) { bytes in bytes[buffer.bytesPerRow(ofPlane: 0) * 100 + 17] }
        #expect(luma == 200)
        let packed = buffer.packedBytes()
        #expect(packed.count == PixelFormat.nv12.packedFrameSize(width: 320, height: 240))
        #expect(packed.count == 320 * 240 * 3 / 2)
        #expect(packed.prefix(320 * 240).allSatisfy { $0 == 200 })

        let pool = try PixelBufferPool(width: 320, height: 240, pixelFormat: .nv12)
        let pooled = try pool.makeBuffer { plane, bytes, _ in _ = bytes.initializeMemory(as: UInt8.self, repeating: plane == 0 ? 200 : 128) }
        #expect(pooled.hasSamePixels(as: buffer))
        let changed = try pool.makeBuffer { plane, bytes, _ in
            _ = bytes.initializeMemory(as: UInt8.self, repeating: plane == 0 ? 200 : 128)
            if plane == 1 { bytes[0] = 0 }
        }
        #expect(!changed.hasSamePixels(as: buffer))

        let error = #expect(throws: CaptureError.self) { try PixelBuffer(width: 0, height: 240, pixelFormat: .nv12) }
        #expect(error?.code == .invalidArgument)
        let refused = #expect(throws: CaptureError.self) {
            try PixelBuffer(width: 2, height: 2, pixelFormat: .nv12) { (_, _, _) throws(CaptureError) in throw CaptureError(.invalidArgument, "no pixels today") }
        }
        #expect(refused?.message == "no pixels today", "the filler's error is the initializer's")
    }

    @Test func aBufferMadeHereLendsNoDMABuffer() throws {
        let buffer = try PixelBuffer(width: 16, height: 16, pixelFormat: .yuyv422) { _, bytes, _ in _ = bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        #expect(!buffer.hasDMABuffer)
        var called = false
        #expect(buffer.withDMABuffer { dma in called = true; return dma.planes.count } == nil)
        #expect(!called, "without a DMA-BUF the closure is not called")
    }

    @Test func testPatternAndConversion() throws {
        let pattern = try TestPattern(width: 320, height: 240, pixelFormat: .yuyv422)
        let frame = try pattern.render(frameIndex: 3)
        #expect(frame.hasSamePixels(as: try pattern.render(frameIndex: 3)))
        let sample = SampleBuffer(media: .video(frame), presentationTimeStamp: MediaTime(value: 3, timescale: 30),
                                  duration: MediaTime(value: 1, timescale: 30), sequenceNumber: 3)
        let bgra = try sample.converted(to: VideoTarget(pixelFormat: .bgra, width: 160, height: 120))
        #expect(bgra.formatDescription == .video(width: 160, height: 120, pixelFormat: .bgra))
        #expect(bgra.pixelBuffer?.bytesPerRow(ofPlane: 0) ?? 0 >= 160 * 4)
    }

    @Test func captureEndToEnd() async throws {
        let camera = try #require(CaptureDevice.default(for: .video))
        let microphone = try #require(CaptureDevice.default(for: .audio))
        let session = CaptureSession()
        session.beginConfiguration()
        if session.canSetSessionPreset(.vga640x480) { try session.setSessionPreset(.vga640x480) }
        let cameraInput = try CaptureDeviceInput(device: camera)
        let microphoneInput = try CaptureDeviceInput(device: microphone)
        #expect(session.canAddInput(cameraInput) && session.canAddInput(microphoneInput))
        try session.addInput(cameraInput)
        try session.addInput(microphoneInput)
        let video = CaptureVideoDataOutput()
        let audio = CaptureAudioDataOutput()
        try session.addOutput(video)
        try session.addOutput(audio)
        try session.commitConfiguration()
        #expect(session.inputs.count == 2)
        #expect(session.connections.count == 2)
        let videoConnection = try #require(video.connection(with: .video))
        #expect(videoConnection.inputPorts.first?.sourceDeviceID == camera.uniqueID)
        try videoConnection.setVideoRotationAngle(90)
        #expect(videoConnection.videoOrientation == .portrait)

        let events = session.events
        let frames = video.sampleBuffers
        let sounds = audio.sampleBuffers
        try await session.start()
        #expect(session.isRunning)
        async let videoSamples = first(5, of: frames)
        async let audioSamples = first(20, of: sounds)
        let (pictures, buffers) = await (videoSamples, audioSamples)
        try await session.stop()
        #expect(!session.isRunning)

        try #require(pictures.count == 5)
        let format = camera.activeFormat
        for sample in pictures {
            #expect(sample.mediaType == .video)
            let pixels = try #require(sample.pixelBuffer)
            #expect(pixels.width == format.width && pixels.height == format.height)
            #expect(pixels.pixelFormat == format.pixelFormat)
            #expect(sample.duration == camera.activeVideoMinFrameDuration)
            // Plane access on a captured frame: the luma plane is not empty.
            let lumaBytes = pixels.withUnsafeBytes(ofPlane: 0) { $0.count }
            #expect(lumaBytes >= pixels.bytesPerRow(ofPlane: 0) * pixels.rowCount(ofPlane: 0))
            let distinct = pixels.withUnsafeBytes(ofPlane: 0) { Set($0.prefix(pixels.bytesPerRow(ofPlane: 0) * 8)).count }
            #expect(distinct > 1, "the test pattern has more than one luma value")
        }
        #expect(zip(pictures, pictures.dropFirst()).allSatisfy { $0.presentationTimeStamp < $1.presentationTimeStamp })

        try #require(buffers.count == 20)
        for (previous, next) in zip(buffers, buffers.dropFirst()) {
            #expect(next.presentationTimeStamp == previous.presentationTimeStamp + previous.duration)
        }
        for sample in buffers {
            let sound = try #require(sample.audioBuffer)
            #expect(sound.format.sampleRate == 48_000)
            #expect(sound.duration == sample.duration)
            let levels = sound.floatSamples()
            #expect(levels.count == sound.frameCount * sound.format.channelCount)
            #expect(levels.allSatisfy { abs($0) <= 0.26 })
        }
        #expect(buffers.contains { $0.audioBuffer!.floatSamples().contains { abs($0) > 0.2 } }, "the tone is audible")

        // Lifecycle events reached the stream in order.
        let lifecycle = await first(2, of: events, timeout: .seconds(5))
        #expect(lifecycle.count == 2)
        if case .didStartRunning? = lifecycle.first {} else { Issue.record("first event is \(String(describing: lifecycle.first))") }
        if case .didStopRunning? = lifecycle.last {} else { Issue.record("last event is \(String(describing: lifecycle.last))") }
    }

    @Test func errorsAreTyped() throws {
        let session = CaptureSession()
        do {
            try session.commitConfiguration()
            Issue.record("commitConfiguration() without beginConfiguration() must throw")
        } catch {
            // `error` is a CaptureError by typed throws.
            #expect(error.code == .invalidState)
            #expect(!error.message.isEmpty)
            #expect(!error.description.isEmpty)
        }
        let custom = CaptureError(.deviceBusy, "busy", errno: 16, operation: "open", deviceID: "cam", path: "/dev/video0")
        #expect(custom.description.contains("busy"))
        #expect(custom.description.contains("cam"))
        #expect(CaptureError.Code.allCases.contains(.unsupportedPreset))
    }

    @Test func metadataOutputSurface() throws {
        let output = CaptureMetadataOutput()
        #expect(output.availableMetadataObjectTypes.contains(.qr))
        #expect(output.metadataObjectTypes.isEmpty)
        try output.setMetadataObjectTypes([.qr, .ean13])
        #expect(output.metadataObjectTypes == [.qr, .ean13])
        #expect(throws: CaptureError.self) { try output.setMetadataObjectTypes([MetadataObject.ObjectType(rawValue: "aztec")]) }
        let stream: AsyncStream<[MetadataObject]> = output.metadataObjects
        _ = stream
        #expect(output.statistics.scannedFrames == 0)
    }

    @Test func movieCodecsAreDescribed() {
        let movie = CaptureMovieFileOutput()
        let live: [MovieOutputSettings.VideoCodec] = movie.availableVideoCodecTypes
        #expect(live.first == .h264)
        #expect(!live.contains(.hevc), "software HEVC is not offered for live recording")
        let info: VideoCodecInfo = MovieOutputSettings.VideoCodec.hevc.info
        #expect(info.encoderName == "libx265" && !info.isHardwareAccelerated && !info.isSuitedToRealTimeRecording)
        #expect(movie.availableVideoCodecs.allSatisfy { $0.info.isAvailable })
    }
}

/// What iOS code ported by renaming writes, through `import CaptureKit` alone: the settable
/// preset, the closure-scoped configuration block, quiet repeated starts and stops, the
/// NS-spelled still alias, the iPhone-only device types, a configurable virtual camera and
/// device names resolved as Linux users type them.
@Suite("Ported spellings", .serialized, .timeLimit(.minutes(1)))
struct PortedSpellingTests {
    @Test func aSessionConfiguredAndRunAsOnIOS() async throws {
        // A camera of its own: the default one is streamed by other suites running meanwhile.
        var configuration = VirtualCameraConfiguration(name: "Public API Ported Camera")
        configuration.sizes = [.init(width: 320, height: 240)]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let frames = CaptureVideoDataOutput()
        let session = CaptureSession()
        try session.configure {
            session.sessionPreset = .medium
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.addOutput(frames)
        }
        #expect(session.sessionPreset == .medium)
        let stream = frames.sampleBuffers
        try session.startRunning()
        try session.startRunning()
        let samples = await first(1, of: stream)
        try session.stopRunning()
        try session.stopRunning()
        #expect(!session.isRunning)
        let sample = try #require(samples.first)
        let jpeg = try #require(CaptureStillImageOutput.jpegStillImageNSDataRepresentation(sample))
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        // UIImage(data:), pngData(), and a frame as an image.
        let image = try CaptureImage(data: jpeg)
        #expect(image.size == VideoDimensions(width: 320, height: 240))
        let png = try #require(image.pngData())
        #expect(try CaptureImage(data: png).size == image.size)
        #expect(try CaptureImage(sampleBuffer: sample).width == 320)
        camera.isSmoothAutoFocusEnabled = true
        #expect(!camera.isSmoothAutoFocusEnabled)
    }

    @Test func lookupsAsIOSCodeMakesThem() throws {
        let iPhoneOnly: [CaptureDevice.DeviceType] = [.builtInDualCamera, .builtInDualWideCamera, .builtInTripleCamera,
                                                      .builtInTelephotoCamera, .builtInUltraWideCamera]
        #expect(CaptureDevice.DiscoverySession(deviceTypes: iPhoneOnly, mediaType: .video, position: .back).devices.isEmpty)
        var configuration = VirtualCameraConfiguration(name: "Public API Selfie Camera")
        configuration.deviceType = .builtInWideAngleCamera
        configuration.position = .front
        let selfie = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(selfie) }
        #expect(selfie.isVirtual)
        #expect(CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .front).devices.contains(selfie))
        #expect(try CaptureDevice.device(resolving: "public api selfie camera") == selfie)
        #expect(try CaptureDevice.device(resolving: selfie.uniqueID, mediaType: .video) == selfie)
        #expect(throws: CaptureError.self) { try CaptureDevice.device(resolving: selfie.uniqueID, mediaType: .audio) }
    }
}
