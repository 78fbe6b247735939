import Testing
@testable import CaptureKit

/// Which device format and frame duration each session preset picks. Sessions are configured,
/// never run (see ``RealTimeCaptureTests/PresetStreamingTests`` for that).
@Suite
struct PresetSelectionTests {
    typealias Format = CaptureDevice.Format

    /// The formats of the built-in virtual camera (read, never streamed here).
    static var virtualCameraFormats: [Format] {
        CaptureDevice.device(uniqueID: "virtual-camera")?.formats ?? []
    }

    static func video(_ width: Int, _ height: Int, _ pixelFormat: PixelFormat, fps: [Int32]) -> Format {
        Format(pixelFormat: pixelFormat, width: width, height: height, frameRateRanges: fps.map { CaptureDevice.FrameRateRange(fps: $0) })
    }

    struct Expectation: Sendable, CustomTestStringConvertible {
        var preset: CaptureSession.Preset
        var width: Int
        var height: Int
        var testDescription: String { "\(preset.rawValue) → \(width)x\(height)" }
    }

    static let expectations: [Expectation] = [
        Expectation(preset: .high, width: 1920, height: 1080),
        Expectation(preset: .medium, width: 640, height: 480),
        Expectation(preset: .low, width: 640, height: 480),
        Expectation(preset: .photo, width: 1920, height: 1080),
        Expectation(preset: .vga640x480, width: 640, height: 480),
        Expectation(preset: .hd1280x720, width: 1280, height: 720),
        Expectation(preset: .hd1920x1080, width: 1920, height: 1080),
    ]

    // MARK: bestFormat(for:among:)

    @Test(arguments: expectations)
    func bestFormatAmongVirtualCameraFormats(_ expectation: Expectation) throws {
        let formats = Self.virtualCameraFormats
        try #require(formats.count == 6)
        let (format, duration) = try #require(CaptureSession.bestFormat(for: expectation.preset, among: formats))
        #expect(format.width == expectation.width)
        #expect(format.height == expectation.height)
        #expect(format.pixelFormat == .nv12, "NV12 is preferred over YUYV 4:2:2")
        #expect(duration == frameDuration(fps: 30))
        #expect(formats.contains(format))
    }

    @Test(arguments: [CaptureSession.Preset.hd4K3840x2160, .cif352x288, .inputPriority])
    func bestFormatHasNoAnswer(_ preset: CaptureSession.Preset) {
        #expect(CaptureSession.bestFormat(for: preset, among: Self.virtualCameraFormats) == nil)
    }

    @Test func bestFormatIgnoresAudioFormats() {
        let audio = [Format(audioFormat: AudioFormat(sampleRate: 48_000, channelCount: 2, sampleFormat: .f32))]
        #expect(CaptureSession.bestFormat(for: .high, among: audio) == nil)
        #expect(CaptureSession.bestFormat(for: .low, among: []) == nil)
    }

    @Test func formatReaching30fpsBeatsBetterPixelFormat() throws {
        let formats = [Self.video(1280, 720, .nv12, fps: [15]), Self.video(1280, 720, .yuyv422, fps: [30, 15])]
        let (format, duration) = try #require(CaptureSession.bestFormat(for: .hd1280x720, among: formats))
        #expect(format.pixelFormat == .yuyv422)
        #expect(duration == frameDuration(fps: 30))
    }

    @Test func bayerFormatsCountOnlyOnACameraWithNothingElse() throws {
        // A sensor with raw Bayer at full size and a processed stream at 720p.
        let formats = [Self.video(1920, 1080, .bayerRGGB8, fps: [30]), Self.video(1280, 720, .yuyv422, fps: [30]),
                       Self.video(1280, 720, .bayerRGGB16, fps: [30])]
        for preset in [CaptureSession.Preset.high, .photo, .hd1280x720] {
            let (format, _) = try #require(CaptureSession.bestFormat(for: preset, among: formats))
            #expect(format.pixelFormat == .yuyv422, "\(preset.rawValue)")
        }
        #expect(CaptureSession.bestFormat(for: .hd1920x1080, among: formats) == nil)
        let rawOnly = formats.filter { $0.pixelFormat?.isBayer == true }
        let (raw, _) = try #require(CaptureSession.bestFormat(for: .high, among: rawOnly))
        #expect(raw.pixelFormat == .bayerRGGB8 && raw.width == 1920)
    }

    @Test func highPrefersLargestFormatReaching30fps() throws {
        let formats = [Self.video(1920, 1080, .nv12, fps: [15]), Self.video(1280, 720, .yuyv422, fps: [30]),
                       Self.video(640, 480, .nv12, fps: [60, 30])]
        let (high, highDuration) = try #require(CaptureSession.bestFormat(for: .high, among: formats))
        #expect(high.width == 1280 && high.height == 720)
        #expect(highDuration == frameDuration(fps: 30))
        // Photo takes the largest frames whatever their rate.
        let (photo, photoDuration) = try #require(CaptureSession.bestFormat(for: .photo, among: formats))
        #expect(photo.width == 1920)
        #expect(photoDuration == frameDuration(fps: 15))
        // Low takes the smallest.
        let (low, _) = try #require(CaptureSession.bestFormat(for: .low, among: formats))
        #expect(low.width == 640)
    }

    @Test func mediumFallsBackToSmallestWhenNothingIsNarrowEnough() throws {
        let formats = [Self.video(1920, 1080, .nv12, fps: [30]), Self.video(1280, 720, .nv12, fps: [30])]
        let (medium, _) = try #require(CaptureSession.bestFormat(for: .medium, among: formats))
        #expect(medium.width == 1280)
        let narrow = formats + [Self.video(320, 240, .nv12, fps: [30]), Self.video(640, 360, .nv12, fps: [30])]
        let (mediumNarrow, _) = try #require(CaptureSession.bestFormat(for: .medium, among: narrow))
        #expect(mediumNarrow.width == 640 && mediumNarrow.height == 360)
    }

    @Test func frameDurationFollowsOnlyAvailableRate() throws {
        let (_, duration) = try #require(CaptureSession.bestFormat(for: .high, among: [Self.video(640, 480, .nv12, fps: [25])]))
        #expect(duration == frameDuration(fps: 25))
    }

    // MARK: Through a session

    @Test(arguments: expectations)
    func sessionPresetSetsDeviceFormat(_ expectation: Expectation) throws {
        let camera = try makeTestCamera("preset \(expectation.preset.rawValue)") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720), .init(width: 1920, height: 1080)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        // Start the device somewhere else so the preset has something to change.
        try camera.lockForConfiguration()
        let other = try #require(camera.formats.first { $0.width != expectation.width && $0.pixelFormat == .yuyv422 })
        try camera.setActiveFormat(other)
        camera.unlockForConfiguration()

        let session = CaptureSession()
        #expect(session.canSetSessionPreset(expectation.preset))
        session.beginConfiguration()
        try session.setSessionPreset(expectation.preset)
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.commitConfiguration()

        #expect(session.sessionPreset == expectation.preset)
        #expect(camera.activeFormat.width == expectation.width)
        #expect(camera.activeFormat.height == expectation.height)
        #expect(camera.activeFormat.pixelFormat == .nv12)
        #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 30))
        #expect(camera.activeVideoMaxFrameDuration == frameDuration(fps: 30))
    }

    @Test func defaultPresetIsHigh() throws {
        let camera = try makeTestCamera("default preset") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        #expect(session.sessionPreset == .high)
        try session.addInput(CaptureDeviceInput(device: camera))   // commits at once, no block open
        #expect(camera.activeFormat.width == 1280)
        #expect(camera.activeFormat.pixelFormat == .nv12)
    }

    @Test(arguments: [CaptureSession.Preset.hd4K3840x2160, .cif352x288])
    func unsupportedPresetIsRefused(_ preset: CaptureSession.Preset) throws {
        let camera = try makeTestCamera("unsupported \(preset.rawValue)") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720), .init(width: 1920, height: 1080)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        // Without a video input there is nothing to check against yet.
        #expect(session.canSetSessionPreset(preset))
        try session.setSessionPreset(.vga640x480)
        try session.addInput(CaptureDeviceInput(device: camera))

        #expect(!session.canSetSessionPreset(preset))
        #expect(session.canSetSessionPreset(.inputPriority))
        let error = #expect(throws: CaptureError.self) { try session.setSessionPreset(preset) }
        #expect(error?.code == .unsupportedPreset)
        #expect(session.sessionPreset == .vga640x480)
        #expect(camera.activeFormat.width == 640)
    }

    @Test func builtInVirtualCameraCannotDo4KOrCIF() throws {
        let camera = try #require(CaptureDevice.device(uniqueID: "virtual-camera"))
        let session = CaptureSession()
        // Staged only (never committed), so the shared built-in camera is left untouched.
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        #expect(!session.canSetSessionPreset(.hd4K3840x2160))
        #expect(!session.canSetSessionPreset(.cif352x288))
        for preset in [CaptureSession.Preset.high, .medium, .low, .photo, .vga640x480, .hd1280x720, .hd1920x1080, .inputPriority] {
            #expect(session.canSetSessionPreset(preset), "\(preset)")
        }
        let error = #expect(throws: CaptureError.self) { try session.setSessionPreset(.hd4K3840x2160) }
        #expect(error?.code == .unsupportedPreset)
        #expect(session.sessionPreset == .high)
    }

    @Test func onlyRate25GivesFrameDuration1Over25() throws {
        let camera = try makeTestCamera("25 fps") { $0.frameRates = [25] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        _ = try makeSession(camera: camera, preset: .high, outputs: [])
        #expect(camera.activeFormat.width == 320)
        #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 25))
        #expect(camera.activeFormat.videoSupportedFrameRateRanges.map(\.maxFrameRate) == [25])
    }

    @Test func settingActiveFormatSwitchesSessionToInputPriority() throws {
        let camera = try makeTestCamera("switch to input priority") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = try makeSession(camera: camera, preset: .high, outputs: [])
        #expect(camera.activeFormat.width == 1280)

        let chosen = try #require(camera.formats.first { $0.width == 640 && $0.pixelFormat == .yuyv422 })
        try camera.lockForConfiguration()
        try camera.setActiveFormat(chosen)
        camera.unlockForConfiguration()

        // The switch happens on the session's control queue; an empty configuration block is
        // a synchronous call serialized on the same queue, so it runs after the switch.
        session.beginConfiguration()
        try session.commitConfiguration()
        #expect(session.sessionPreset == .inputPriority)
        #expect(camera.activeFormat == chosen, "the commit must not re-apply .high over the user's format")
    }
}

extension RealTimeCaptureTests {
    /// Presets and chosen formats while the session runs: the stream delivers what was chosen.
    @Suite(.serialized)
    struct PresetStreamingTests {
        @Test func inputPriorityLeavesActiveFormatUntouched() async throws {
            let camera = try makeTestCamera("input priority") { $0.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let chosen = try #require(camera.formats.first { $0.width == 320 && $0.pixelFormat == .yuyv422 })
            try camera.lockForConfiguration()
            try camera.setActiveFormat(chosen)
            try camera.setActiveVideoMinFrameDuration(frameDuration(fps: 15))
            camera.unlockForConfiguration()

            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            #expect(session.sessionPreset == .inputPriority)
            #expect(camera.activeFormat == chosen, ".high would have picked 640x480 NV12")
            #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 15))

            // The stream runs the format the user chose.
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 3, timeout: .seconds(30)))
            for received in recorder.samples.items {
                #expect(received.sample.formatDescription == .video(width: 320, height: 240, pixelFormat: .yuyv422))
            }
            // At 15 fps: every frame lasts 1/15 s and they are whole frame durations apart.
            let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration(fps: 15))
            #expect(times.isExact, "\(times)")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }

        @Test func settingActiveFormatWhileRunningRestartsStreamInNewFormat() async throws {
            let camera = try makeTestCamera("restream") { $0.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .high, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.contains { $0.width == 640 } })

            let chosen = try #require(camera.formats.first { $0.width == 320 && $0.pixelFormat == .yuyv422 })
            try camera.lockForConfiguration()
            try camera.setActiveFormat(chosen)
            camera.unlockForConfiguration()

            let switched = await recorder.samples.wait(timeout: .seconds(30)) {
                $0.last?.sample.formatDescription == .video(width: 320, height: 240, pixelFormat: .yuyv422)
            }
            #expect(switched)
            #expect(session.sessionPreset == .inputPriority)
            #expect(session.state == .running)
        }
    }
}

/// `canSetSessionPreset`, `canAddInput` and the commit agree, with the preset set before any
/// camera as the article does, and the settable `sessionPreset`. Sessions are committed,
/// never run.
@Suite
struct PresetAgreementTests {
    /// AVFoundation's answer: with no camera every preset can be set; a camera added later
    /// must be able to do it, or `canAddInput` says no — and what it accepts, commit accepts.
    @Test func aPresetSetBeforeTheCameraDecidesWhichCamerasCanBeAdded() throws {
        let camera = try makeTestCamera("preset first") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        #expect(session.canSetSessionPreset(.hd4K3840x2160), "nothing to check against yet")
        try session.setSessionPreset(.hd4K3840x2160)
        let input = try CaptureDeviceInput(device: camera)
        #expect(!session.canAddInput(input))
        let refused = #expect(throws: CaptureError.self) { try session.addInput(input) }
        #expect(refused?.code == .unsupportedPreset)
        #expect(refused?.deviceID == camera.uniqueID)
        #expect(session.inputs.isEmpty)

        // The article's fallback: a preset the camera can do, then the camera is accepted and
        // committed in one block.
        try session.configure {
            session.sessionPreset = .hd1280x720
            #expect(session.canAddInput(input))
            try session.addInput(input)
        }
        #expect(session.inputs == [input])
        #expect(camera.activeFormat.width == 1280)
        #expect(!session.canSetSessionPreset(.hd4K3840x2160), "now there is a camera to ask")
    }

    /// Whatever `canAddInput` accepts for every preset, a commit of it succeeds; whatever it
    /// refuses, `addInput` refuses.
    @Test(arguments: CaptureSession.Preset.allCases)
    func canAddInputAndCommitAgree(_ preset: CaptureSession.Preset) throws {
        let camera = try makeTestCamera("agree \(preset.rawValue)") { $0.sizes = [.init(width: 352, height: 288), .init(width: 640, height: 480)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        session.beginConfiguration()
        try session.setSessionPreset(preset)
        let input = try CaptureDeviceInput(device: camera)
        let accepted = session.canAddInput(input)
        #expect(accepted == ![.hd1280x720, .hd1920x1080, .hd4K3840x2160].contains(preset), "\(preset)")
        if accepted {
            try session.addInput(input)
            try session.commitConfiguration()
            #expect(session.inputs == [input])
        } else {
            #expect(throws: CaptureError.self) { try session.addInput(input) }
            try session.commitConfiguration()
            #expect(session.inputs.isEmpty)
        }
    }

    /// `session.sessionPreset = x` as on iOS: a preset the camera cannot do is not set, and
    /// the session says why through its runtime-error event.
    @Test func settingAnUnsupportedPresetKeepsTheOldOneAndReportsARuntimeError() async throws {
        let camera = try makeTestCamera("settable preset") { $0.sizes = [.init(width: 640, height: 480), .init(width: 1280, height: 720)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [])
        let events = EventRecorder(session)
        session.sessionPreset = .hd1280x720
        #expect(session.sessionPreset == .hd1280x720)
        #expect(camera.activeFormat.width == 1280, "set outside a block: applied at once")
        session.sessionPreset = .hd4K3840x2160
        #expect(session.sessionPreset == .hd1280x720)
        #expect(camera.activeFormat.width == 1280)
        #expect(await events.events.wait(forCount: 1))
        #expect(events.events.items == [.runtimeError(.unsupportedPreset)])
    }
}

/// `configure { }`, the closure-scoped configuration block: always closed, errors rethrown.
@Suite
struct ConfigureBlockTests {
    @Test func aBodyThatThrowsStillClosesTheBlockAndCommitsWhatItStaged() throws {
        let camera = try makeTestCamera("configure throws")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        let input = try CaptureDeviceInput(device: camera)
        let output = CaptureVideoDataOutput()
        let error = #expect(throws: CaptureError.self) {
            try session.configure {
                try session.addInput(input)
                try session.addInput(input)      // the article's naive `try`: already added
                try session.addOutput(output)    // never reached
            }
        }
        #expect(error?.code == .cannotAddInput, "the body's error, not commit's")
        #expect(session.inputs == [input], "what was staged before the error is committed")
        #expect(session.outputs.isEmpty)
        // The block is closed: a commit now has no block to close, and the session starts.
        let unbalanced = #expect(throws: CaptureError.self) { try session.commitConfiguration() }
        #expect(unbalanced?.code == .invalidState)
        try session.startRunning()
        #expect(session.state == .running)
        try session.stopRunning()

        // The caller's own errors come back as they were thrown.
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try session.configure {
                try session.addOutput(output)
                throw Abandoned()
            }
        }
        #expect(session.outputs == [output], "committed all the same")
    }

    @Test func commitsErrorIsThrownWhenTheBodySucceedsAndItsValueReturned() throws {
        let camera = try makeTestCamera("configure commit fails") { $0.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [])
        // Back with only 320x240: the preset cannot be applied at the next commit.
        try camera.simulateDisconnect()
        try camera.simulateReconnect(offering: camera.formats.filter { $0.width == 320 })
        let output = CaptureVideoDataOutput()
        let error = #expect(throws: CaptureError.self) { try session.configure { try session.addOutput(output) } }
        #expect(error?.code == .unsupportedPreset)
        #expect(session.outputs.isEmpty, "a failed commit applies nothing")

        try camera.simulateReconnect()
        let count = try session.configure { () throws(CaptureError) -> Int in
            try session.addOutput(output)
            return session.outputs.count
        }
        #expect(count == 1)
        #expect(session.outputs == [output])
    }

    @Test func blocksNestInsideTheClosure() throws {
        let camera = try makeTestCamera("configure nests") { $0.sizes = [.init(width: 320, height: 240), .init(width: 640, height: 480)] }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = try makeSession(camera: camera, preset: .low, outputs: [])
        try session.configure {
            try session.configure { try session.setSessionPreset(.vga640x480) }
            #expect(camera.activeFormat.width == 320, "the inner block does not commit")
        }
        #expect(camera.activeFormat.width == 640)
    }
}
