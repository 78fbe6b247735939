import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

/// Discovery over a made-up /dev and sysfs: capture nodes kept (single- and multi-planar),
/// metadata nodes skipped, one device per physical device, identity from by-id and sysfs;
/// and the inotify watch on a real directory.
@Suite("V4L2Discovery", .excludable)
struct V4L2DiscoveryTests {
    /// Opens scripted nodes by path.
    final class PathOpener: V4L2DeviceOpener, @unchecked Sendable {
        let scripts: [String: ScriptedV4L2Device.Script]
        let denied: Set<String>
        init(_ scripts: [String: ScriptedV4L2Device.Script], denied: Set<String> = []) {
            self.scripts = scripts
            self.denied = denied
        }
        func open(_ path: String) throws(CaptureError) -> any V4L2DeviceIO {
            if denied.contains(path) { throw V4L2Syscall.error(errno: EACCES, operation: "open", path: path) }
            guard let script = scripts[path] else { throw V4L2Syscall.error(errno: ENODEV, operation: "open", path: path) }
            return ScriptedV4L2Device(path: path, script: script)
        }
        func nodeExists(_ path: String) -> Bool { scripts[path] != nil }
    }

    static func script(card: String, bus: String, caps: UInt32) -> ScriptedV4L2Device.Script {
        var script = V4L2Fixtures.yuyvScript()
        script.capability = V4L2Capability(driver: "uvcvideo", card: card, busInfo: bus, deviceCapabilities: caps)
        return script
    }

    /// A made-up /dev (with a by-id link to video0) and sysfs: a Logitech webcam on USB whose
    /// firmware places it in front.
    static func makeTree() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ck-v4l2-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let fm = FileManager.default
        let dev = root.appendingPathComponent("dev")
        try fm.createDirectory(at: dev.appendingPathComponent("v4l/by-id"), withIntermediateDirectories: true)
        for name in ["video0", "video1", "video2", "video3", "video10", "vhci", "videoX"] {
            #expect(fm.createFile(atPath: dev.appendingPathComponent(name).path, contents: Data()))
        }
        try fm.createSymbolicLink(atPath: dev.appendingPathComponent("v4l/by-id/usb-Logitech_Webcam_C270_ABC123-video-index0").path,
                                  withDestinationPath: "../../video0")
        try fm.createSymbolicLink(atPath: dev.appendingPathComponent("v4l/by-id/usb-Logitech_Webcam_C270_ABC123-video-index1").path,
                                  withDestinationPath: "../../video1")
        // sysfs: video0 sits on interface 1-1:1.0 of USB device 1-1, whose firmware places it in front.
        let usb = root.appendingPathComponent("sys/devices/pci0000:00/usb1/1-1")
        let interface = usb.appendingPathComponent("1-1:1.0")
        try fm.createDirectory(at: interface, withIntermediateDirectories: true)
        try fm.createDirectory(at: usb.appendingPathComponent("physical_location"), withIntermediateDirectories: true)
        for (file, text) in [("idVendor", "046d\n"), ("idProduct", "0825\n"), ("manufacturer", "Logitech\n"), ("removable", "removable\n"),
                             ("physical_location/panel", "front\n")] {
            try text.write(to: usb.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let classDir = root.appendingPathComponent("sys/class/video4linux/video0")
        try fm.createDirectory(at: classDir, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: classDir.appendingPathComponent("device").path, withDestinationPath: interface.path)
        return root
    }

    @Test func captureNodesBecomeOneDevicePerPhysicalDevice() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let dev = root.appendingPathComponent("dev").path
        let capture: UInt32 = 0x0400_0001, metadata: UInt32 = 0x0480_0000, multiplanar: UInt32 = 0x0400_1000, output: UInt32 = 0x0400_0002
        let opener = PathOpener([
            "\(dev)/video0": Self.script(card: "Webcam C270", bus: "usb-0000:00:14.0-1", caps: capture),
            "\(dev)/video1": Self.script(card: "Webcam C270", bus: "usb-0000:00:14.0-1", caps: metadata),
            "\(dev)/video2": Self.script(card: "ISP Camera", bus: "platform:isp", caps: multiplanar),
            "\(dev)/video3": Self.script(card: "ISP Camera", bus: "platform:isp", caps: multiplanar),
            "\(dev)/video10": Self.script(card: "Loopback", bus: "platform:v4l2loopback-000", caps: output),
        ])
        let discovery = V4L2Discovery(devDirectory: dev, sysRoot: root.appendingPathComponent("sys").path, opener: opener)
        #expect(discovery.nodeNames() == ["video0", "video1", "video2", "video3", "video10"])
        let nodes = discovery.nodes().nodes
        #expect(nodes.map(\.path) == ["\(dev)/video0", "\(dev)/video2"])
        #expect(nodes.map(\.bufferType) == [.capture, .captureMultiplanar])

        let webcam = nodes[0].descriptor
        #expect(webcam.uniqueID == "v4l2:by-id:usb-Logitech_Webcam_C270_ABC123-video-index0")
        #expect(webcam.localizedName == "Webcam C270")
        #expect(webcam.modelID == "046d:0825")
        #expect(webcam.manufacturer == "Logitech")
        #expect(webcam.deviceType == .external)
        #expect(webcam.position == .front)

        let isp = nodes[1].descriptor
        #expect(isp.uniqueID == "v4l2:platform:isp:ISP Camera")
        #expect(isp.deviceType == .builtInWideAngleCamera)
        #expect(isp.position == .unspecified)
        #expect(isp.modelID == "uvcvideo")

        let provider = V4L2DeviceProvider(discovery: discovery)
        let first = provider.v4l2Backends()
        #expect(first.map(\.descriptor.uniqueID) == [webcam.uniqueID, isp.uniqueID])
        #expect(first[0].formats.count == 1)
        let again = provider.v4l2Backends()
        #expect(zip(first, again).allSatisfy { $0 === $1 }, "an unchanged /dev keeps the same backends")
    }

    @Test func nodesThatCannotBeOpenedAreReported() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let dev = root.appendingPathComponent("dev").path
        let opener = PathOpener([:], denied: ["\(dev)/video0"])
        let result = V4L2Discovery(devDirectory: dev, sysRoot: root.path, opener: opener).nodes()
        #expect(result.nodes.isEmpty)
        #expect(result.failures["\(dev)/video0"]?.code == .notAuthorized)
        let provider = V4L2DeviceProvider(discovery: V4L2Discovery(devDirectory: dev, sysRoot: root.path, opener: opener))
        #expect(provider.v4l2Backends().isEmpty)
        #expect(provider.openFailures["\(dev)/video0"]?.message.contains("'video' group") == true)
    }

    @Test func hotplugWatchNoticesVideoNodesComingAndGoing() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ck-hotplug-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let changes = Recorder<Int>()
        let monitor = try V4L2HotplugMonitor(directory: root.path) { changes.append(1) }
        defer { monitor.stop() }
        #expect(FileManager.default.createFile(atPath: root.appendingPathComponent("ttyS9").path, contents: Data()))
        #expect(FileManager.default.createFile(atPath: root.appendingPathComponent("video7").path, contents: Data()))
        #expect(await changes.wait(forCount: 1, timeout: .seconds(30)))
        try FileManager.default.removeItem(at: root.appendingPathComponent("video7"))
        #expect(await changes.wait(forCount: 2, timeout: .seconds(30)))
    }

    @Test(.enabled(if: access("/dev/video0", F_OK) != 0, "this host has cameras"))
    func hostWithoutCamerasFindsNoneAndKeepsTheVirtualDefault() {
        #expect(V4L2DeviceProvider.shared.v4l2Backends().isEmpty)
        #expect(CaptureDevice.default(for: .video)?.isVirtual == true)
    }
}

extension V4L2DiscoveryTests {
    /// A camera node appearing in and leaving a watched directory: inotify → rescan → events.
    @Test func connectionEventsFollowNodesComingAndGoing() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ck-plug-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        var script = V4L2Fixtures.yuyvScript()
        script.capability = V4L2Capability(driver: "uvcvideo", card: "Plugged Camera", busInfo: "usb-0000:00:14.0-2", deviceCapabilities: 0x0400_0001)
        let node = root.appendingPathComponent("video4").path
        let opener = PathOpener([node: script])
        let provider = V4L2DeviceProvider(discovery: V4L2Discovery(devDirectory: root.path, sysRoot: root.path, opener: opener))
        let devices = Mutex<[String: CaptureDevice]>([:])
        let hub = DeviceConnectionHub(registry: .shared, watch: { try? V4L2HotplugMonitor(directory: root.path, changed: $0) }, invalidate: { provider.invalidate() }) {
            // As DeviceRegistry does: one CaptureDevice per backend.
            devices.withLock { known in
                var present: [String: CaptureDevice] = [:]
                for backend in provider.v4l2Backends() {
                    let id = backend.descriptor.uniqueID
                    if let device = known[id], device.backend === backend { present[id] = device } else { present[id] = CaptureDevice(backend: backend) }
                }
                known = present
                return present
            }
        }
        let events = Recorder<String>()
        let stream = hub.subscribe()
        let listener = Task {
            for await event in stream {
                switch event {
                case .connected(let device): events.append("connected \(device.localizedName)")
                case .disconnected(let device): events.append("disconnected \(device.localizedName)")
                }
            }
        }
        defer { listener.cancel() }
        #expect(FileManager.default.createFile(atPath: node, contents: Data()))
        #expect(await events.wait(timeout: .seconds(30)) { $0.contains("connected Plugged Camera") })
        try FileManager.default.removeItem(atPath: node)
        #expect(await events.wait(timeout: .seconds(30)) { $0.contains("disconnected Plugged Camera") })
        #expect(events.items == ["connected Plugged Camera", "disconnected Plugged Camera"])
    }
}
