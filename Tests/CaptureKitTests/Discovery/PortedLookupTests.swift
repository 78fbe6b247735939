import Foundation
import Testing
@testable import CaptureKit

/// The lookups iOS code makes (the article's `getCameraWithPosition:`), answered by the
/// built-in virtual cameras on a machine without cameras, and left to real cameras on a
/// machine with them. Serialized: one test makes a camera of an iPhone type that another
/// checks no camera has.
@Suite("PortedLookups", .serialized)
struct PortedLookupTests {
    static var hasCamera: Bool { CaptureDevice.allDevices.contains { !$0.isVirtual && $0.hasMediaType(.video) } }

    static let iPhoneTypes: [CaptureDevice.DeviceType] = [.builtInDualCamera, .builtInDualWideCamera, .builtInTripleCamera,
                                                          .builtInTelephotoCamera, .builtInUltraWideCamera]

    /// The article's lookup, ported by renaming: the multi-camera types at the back, then the
    /// wide-angle camera. `present` is what discovery lists (a made-up /dev's devices in tests).
    static func articleCamera(_ position: CaptureDevice.Position, among present: [CaptureDevice] = CaptureDevice.allDevices) -> CaptureDevice? {
        let types: [CaptureDevice.DeviceType] = position == .back
            ? [.builtInDualCamera, .builtInDualWideCamera, .builtInTripleCamera] : [.builtInWideAngleCamera]
        if let camera = CaptureDevice.DiscoverySession(deviceTypes: types, mediaType: .video, position: position).devices(among: present).first {
            return camera
        }
        guard position == .back else { return nil }
        return CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .back)
            .devices(among: present).first
    }

    @Test(.enabled(if: !PortedLookupTests.hasCamera, "with a camera the lookups find it"))
    func backAndFrontWideAngleCamerasWithoutHardware() throws {
        let back = try #require(Self.articleCamera(.back))
        #expect(back.uniqueID == "virtual-camera")
        #expect(back.deviceType == .builtInWideAngleCamera && back.position == .back && back.isVirtual)
        #expect(back === CaptureDevice.default(for: .video), "the back camera is the default, as on an iPhone")
        #expect(CaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .back) === back)

        let front = try #require(Self.articleCamera(.front))
        #expect(front.uniqueID == "virtual-front-camera")
        #expect(front.localizedName == "Virtual Front Camera")
        #expect(front.deviceType == .builtInWideAngleCamera && front.position == .front && front.isVirtual)
        #expect(front.formats == back.formats)
        #expect(CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .unspecified)
            .devices.map(\.uniqueID).prefix(2) == ["virtual-camera", "virtual-front-camera"])
    }

    /// No Linux camera is a dual, triple, telephoto or ultra-wide camera: those lookups find
    /// nothing and say nothing.
    @Test func iPhoneOnlyTypesFindNothing() {
        for type in Self.iPhoneTypes {
            #expect(CaptureDevice.DiscoverySession(deviceTypes: [type], mediaType: .video, position: .unspecified).devices.isEmpty, "\(type)")
            #expect(CaptureDevice.default(type, for: .video, position: .back) == nil)
        }
    }

    /// A test can make a camera the article's first lookup finds: type and position are the
    /// configuration's, and the camera is still virtual.
    @Test func aVirtualCamerasTypeAndPositionAreConfigurable() throws {
        let triple = try makeTestCamera("triple") { config in
            config.deviceType = .builtInTripleCamera
            config.position = .back
        }
        let selfie = try makeTestCamera("selfie") { config in
            config.deviceType = .builtInWideAngleCamera
            config.position = .front
        }
        #expect(triple.deviceType == .builtInTripleCamera && triple.position == .back && triple.isVirtual)
        #expect(Self.articleCamera(.back) === triple, "the multi-camera types are asked for first")
        #expect(CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video, position: .front).devices.contains(selfie))
        #expect(!CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .video, position: .unspecified).devices.contains(selfie))
        CaptureDevice.removeVirtualDevice(triple)
        CaptureDevice.removeVirtualDevice(selfie)
        #expect(Self.articleCamera(.back) !== triple)

        let microphoneCamera = #expect(throws: CaptureError.self) { try makeTestCamera("audio type") { $0.deviceType = .microphone } }
        #expect(microphoneCamera?.code == .invalidArgument)
    }

    /// With a real camera present the built-in virtual cameras step aside: the lookups find
    /// the camera with its own type and position (a USB webcam, external, in front), or
    /// nothing — never a made-up camera. The virtual microphone stays, as no microphone is
    /// present. Discovery over a made-up /dev.
    @Test func theVirtualCamerasStepAsideForARealOne() throws {
        let root = try V4L2DiscoveryTests.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let dev = root.appendingPathComponent("dev").path
        let opener = V4L2DiscoveryTests.PathOpener(["\(dev)/video0": V4L2DiscoveryTests.script(card: "Webcam C270", bus: "usb-0000:00:14.0-1", caps: 0x0400_0001)])
        let webcamProvider = V4L2DeviceProvider(discovery: V4L2Discovery(devDirectory: dev, sysRoot: root.appendingPathComponent("sys").path, opener: opener))
        let present = DeviceRegistry(providers: [webcamProvider, VirtualDeviceProvider.shared]).devices()
        let webcam = try #require(present.first)
        #expect(webcam.deviceType == .external && webcam.position == .front && !webcam.isVirtual)

        #expect(Self.articleCamera(.back, among: present) == nil)
        #expect(Self.articleCamera(.front, among: present) == nil, "the webcam is external, not built in")
        let facing = CaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external], mediaType: .video, position: .front)
        #expect(facing.devices(among: present) == [webcam])
        let any = CaptureDevice.DiscoverySession(deviceTypes: CaptureDevice.DeviceType.allCases, mediaType: .video, position: .unspecified)
        #expect(!any.devices(among: present).contains { $0.uniqueID.hasPrefix("virtual-") })
        #expect(present.contains { $0.uniqueID == "virtual-camera" }, "still listed, and still reachable by unique ID")
        let microphones = CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .audio, position: .unspecified)
        #expect(microphones.devices(among: present).contains { $0.uniqueID == "virtual-microphone" })

        // Without the webcam, the same lookups find the virtual cameras again.
        let bare = DeviceRegistry(providers: [VirtualDeviceProvider.shared]).devices()
        #expect(Self.articleCamera(.back, among: bare)?.uniqueID == "virtual-camera")
        #expect(Self.articleCamera(.front, among: bare)?.uniqueID == "virtual-front-camera")
    }
}

extension RealTimeCaptureTests {
    /// The article's `switchCameras` on a machine without cameras: from the virtual back
    /// camera to the virtual front one, in one configuration block, while running.
    @Suite struct CameraSwitchTests {
        @Test(.enabled(if: !PortedLookupTests.hasCamera, "with a camera the lookups find it"))
        func switchingFromTheBackToTheFrontCameraWhileRunning() async throws {
            let back = try #require(PortedLookupTests.articleCamera(.back))
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = CaptureSession()
            try session.configure {
                session.sessionPreset = .inputPriority   // leaves the shared camera's format alone
                try session.addInput(CaptureDeviceInput(device: back))
                try session.addOutput(output)
            }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 3))
            #expect(output.connection(with: .video)?.isVideoMirrored == false)

            let current = try #require(session.inputs.first as? CaptureDeviceInput)
            let opposite: CaptureDevice.Position = current.device.position == .front ? .back : .front
            let next = try CaptureDeviceInput(device: try #require(PortedLookupTests.articleCamera(opposite)))
            try session.configure {
                session.removeInput(current)
                if session.canAddInput(next) { try session.addInput(next) } else { try session.addInput(current) }
            }
            #expect((session.inputs.first as? CaptureDeviceInput)?.device.uniqueID == "virtual-front-camera")
            #expect(!back.isInUse && next.device.isInUse)
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 3), "frames from the front camera")
            #expect(output.connection(with: .video)?.isVideoMirrored == true, "a front camera is mirrored, as on iOS")
            try await session.stop()
        }
    }
}
