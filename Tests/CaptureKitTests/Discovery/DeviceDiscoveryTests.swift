import Testing
@testable import CaptureKit

/// Finding devices: the built-in virtual camera and microphone, their formats, discovery
/// filters and virtual devices made by tests. Reads devices only; never streams.
@Suite("DeviceDiscovery")
struct DeviceDiscoveryTests {
    static var hasHardware: Bool { CaptureDevice.allDevices.contains { !$0.isVirtual } }

    @Test(.enabled(if: !DeviceDiscoveryTests.hasHardware, "with hardware the default is a real device"))
    func defaultVideoDeviceIsVirtualCamera() throws {
        let camera = try #require(CaptureDevice.default(for: .video))
        #expect(camera.localizedName == "Virtual Camera")
        #expect(camera.uniqueID == "virtual-camera")
        #expect(camera.deviceType == .builtInWideAngleCamera, "the type iOS code looks for")
        #expect(camera.isVirtual)
        #expect(camera.isConnected)
        #expect(camera.hasMediaType(.video))
        #expect(!camera.hasMediaType(.audio))
        #expect(camera.position == .back, "an iPhone's default camera faces back")
        #expect(camera.manufacturer == "CaptureKit")
        #expect(CaptureDevice.device(uniqueID: "virtual-camera") === camera)
        #expect(CaptureDevice.default(for: .video) === camera, "discovery returns the same device object every time")
    }

    @Test(.enabled(if: !DeviceDiscoveryTests.hasHardware, "with hardware the default is a real device"))
    func defaultAudioDeviceIsVirtualMicrophone() async throws {
        // Not while a sound-server test has made its private daemon visible to this process.
        try await AudioDaemons.withoutSoundServer {
            let microphone = try #require(CaptureDevice.default(for: .audio))
            #expect(microphone.localizedName == "Virtual Microphone")
            #expect(microphone.uniqueID == "virtual-microphone")
            #expect(microphone.isVirtual)
            #expect(microphone.hasMediaType(.audio))
            #expect(!microphone.hasMediaType(.video))
        }
    }

    @Test func virtualCameraFormats() throws {
        let camera = try #require(CaptureDevice.device(uniqueID: "virtual-camera"))
        let formats = camera.formats
        #expect(formats.count == 6)
        var seen: Set<String> = []
        for format in formats {
            #expect(format.mediaType == .video)
            #expect(format.audioFormat == nil)
            let rates = format.videoSupportedFrameRateRanges.map(\.maxFrameRate).sorted()
            #expect(rates == [15, 30, 60], "\(format)")
            #expect(format.videoSupportedFrameRateRanges.allSatisfy { $0.minFrameRate == $0.maxFrameRate }, "discrete rates")
            #expect(format.minFrameDuration == frameDuration(fps: 60))
            #expect(format.maxFrameDuration == frameDuration(fps: 15))
            #expect(format.supportsFrameDuration(frameDuration(fps: 30)))
            #expect(!format.supportsFrameDuration(frameDuration(fps: 25)))
            seen.insert("\(format.width)x\(format.height) \(format.pixelFormat?.rawValue ?? "?")")
        }
        let expected: Set<String> = ["640x480 yuyv422", "640x480 nv12", "1280x720 yuyv422", "1280x720 nv12",
                                     "1920x1080 yuyv422", "1920x1080 nv12"]
        #expect(seen == expected)
        #expect(CaptureDevice.Format.init(pixelFormat: .nv12, width: 640, height: 480, frameRateRanges: [.init(fps: 60), .init(fps: 30), .init(fps: 15)])
            .description == "640x480 nv12 @ 60 fps,30 fps,15 fps")
    }

    @Test func virtualMicrophoneFormats() throws {
        let microphone = try #require(CaptureDevice.device(uniqueID: "virtual-microphone"))
        let formats = microphone.formats
        #expect(formats.count == 4)
        #expect(formats.allSatisfy { $0.mediaType == .audio && $0.pixelFormat == nil && $0.width == 0 && $0.videoSupportedFrameRateRanges.isEmpty })
        let audio = Set(formats.compactMap(\.audioFormat))
        var expected: Set<AudioFormat> = []
        for sampleFormat in [AudioFormat.SampleFormat.s16, .f32] {
            for channels in [1, 2] { expected.insert(AudioFormat(sampleRate: 48_000, channelCount: channels, sampleFormat: sampleFormat)) }
        }
        #expect(audio == expected)
        #expect(microphone.activeFormat.audioFormat?.sampleRate == 48_000)
    }

    /// A removed virtual camera is let go (its frames with it), not kept for a rediscovery.
    @Test func aRemovedVirtualCameraIsNotKept() throws {
        weak var released: CaptureDevice?
        do {
            let camera = try makeTestCamera("released")
            released = camera
            #expect(CaptureDevice.device(uniqueID: camera.uniqueID) === camera)
            CaptureDevice.removeVirtualDevice(camera)
            #expect(CaptureDevice.device(uniqueID: camera.uniqueID) == nil)
        }
        #expect(released == nil, "the registry still holds the removed camera")
    }

    @Test func discoverySessionFiltersByTypeMediaAndPosition() throws {
        let front = try makeTestCamera("front") { $0.position = .front }
        let back = try makeTestCamera("back") { $0.position = .back }
        let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("discovery mic")))
        defer {
            CaptureDevice.removeVirtualDevice(front)
            CaptureDevice.removeVirtualDevice(back)
            CaptureDevice.removeVirtualDevice(microphone)
        }
        let builtIn = try #require(CaptureDevice.device(uniqueID: "virtual-camera"))

        let frontCameras = CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .video, position: .front).devices
        #expect(frontCameras.contains(front))
        #expect(!frontCameras.contains(back))
        #expect(!frontCameras.contains(builtIn))
        #expect(frontCameras.allSatisfy { $0.position == .front })

        let anyPosition = CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .video, position: .unspecified).devices
        #expect(anyPosition.contains(front) && anyPosition.contains(back))
        #expect(!anyPosition.contains(builtIn), "the built-in virtual cameras are wide-angle cameras, not of type .virtual")
        #expect(!anyPosition.contains(microphone))
        #expect(anyPosition.allSatisfy { $0.hasMediaType(.video) })

        let audio = CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .audio, position: .unspecified).devices
        #expect(audio.contains(microphone))
        #expect(!audio.contains(front))
        #expect(audio.allSatisfy { $0.hasMediaType(.audio) })

        let anyMedia = CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: nil, position: .unspecified).devices
        #expect(anyMedia.contains(microphone) && anyMedia.contains(front))

        let external = CaptureDevice.DiscoverySession(deviceTypes: [.external, .builtInWideAngleCamera], mediaType: .video, position: .unspecified).devices
        #expect(external.allSatisfy { $0.deviceType == .external || $0.deviceType == .builtInWideAngleCamera })
        #expect(!external.contains(front))

        let defaultBack = CaptureDevice.default(.virtual, for: .video, position: .back)
        #expect(defaultBack?.position == .back)
        #expect(CaptureDevice.default(.virtual, for: .audio, position: .unspecified)?.hasMediaType(.audio) == true)
    }

    @Test func discoveryOrderFollowsDeviceTypes() throws {
        let camera = try makeTestCamera("order")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureDevice.DiscoverySession(deviceTypes: [.external, .virtual], mediaType: nil, position: .unspecified)
        #expect(session.deviceTypes == [.external, .virtual])
        let types = session.devices.map(\.deviceType)
        if let firstVirtual = types.firstIndex(of: .virtual) {
            #expect(types[firstVirtual...].allSatisfy { $0 == .virtual }, "devices come in the order of deviceTypes")
        }
        #expect(session.devices.contains(camera))
    }

    @Test func virtualDevicesComeAndGo() throws {
        var configuration = VirtualCameraConfiguration(name: uniqueDeviceName("come and go"))
        configuration.uniqueID = "test-come-and-go-\(UInt32.random(in: 0...UInt32.max))"
        configuration.sizes = [.init(width: 320, height: 240)]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        #expect(camera.uniqueID == configuration.uniqueID)
        #expect(camera.localizedName == configuration.name)
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) === camera)
        #expect(CaptureDevice.allDevices.contains(camera))
        #expect(camera.formats.count == 2)
        #expect(camera.activeFormat.width == 320)

        // The same unique ID again is refused, and the first one stays.
        let error = #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualCamera(configuration) }
        #expect(error?.code == .invalidArgument)
        var microphoneClash = VirtualMicrophoneConfiguration(name: "clash")
        microphoneClash.uniqueID = configuration.uniqueID
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualMicrophone(microphoneClash) }
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) === camera)

        CaptureDevice.removeVirtualDevice(camera)
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) == nil)
        #expect(!CaptureDevice.allDevices.contains(camera))
    }

    @Test func builtInUniqueIDsCannotBeTaken() {
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualCamera(VirtualCameraConfiguration(name: "Virtual Camera")) }
        var microphone = VirtualMicrophoneConfiguration(name: "anything")
        microphone.uniqueID = "virtual-microphone"
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualMicrophone(microphone) }
        #expect(CaptureDevice.device(uniqueID: "virtual-camera")?.localizedName == "Virtual Camera")
    }

    @Test func uniqueIDIsDerivedFromName() throws {
        let suffix = UInt32.random(in: 0...UInt32.max)
        let camera = try CaptureDevice.makeVirtualCamera(VirtualCameraConfiguration(name: "Bench  Camera #\(suffix)!"))
        defer { CaptureDevice.removeVirtualDevice(camera) }
        #expect(camera.uniqueID == "bench-camera-\(suffix)")
    }

    @Test func invalidVirtualDevicesAreRefused() {
        var noRates = VirtualCameraConfiguration(name: uniqueDeviceName("no rates"))
        noRates.frameRates = []
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualCamera(noRates) }
        var rgb = VirtualCameraConfiguration(name: uniqueDeviceName("rgb"))
        rgb.pixelFormats = [.bgra]
        #expect((#expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualCamera(rgb) })?.code == .unsupportedFormat)
        var noSizes = VirtualCameraConfiguration(name: uniqueDeviceName("no sizes"))
        noSizes.sizes = []
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualCamera(noSizes) }
        var aboveNyquist = VirtualMicrophoneConfiguration(name: uniqueDeviceName("nyquist"))
        aboveNyquist.frequency = 30_000
        #expect(throws: CaptureError.self) { try CaptureDevice.makeVirtualMicrophone(aboveNyquist) }
    }
}
