import Foundation
import Testing
@testable import CaptureKit

/// What several cameras' formats ask of the USB bus they share, and a session that refuses a
/// combination that cannot fit before starting anything.
@Suite struct HardwareCostTests {
    static let usb1 = CaptureDevice.Bus(id: "usb1", speed: .usbHigh)

    /// Virtual YUYV cameras claiming to be on `bus`, at `size` and 30 fps.
    static func cameras(_ count: Int, on bus: CaptureDevice.Bus?, size: VideoDimensions, label: String) throws -> [CaptureDevice] {
        try (0..<count).map { index in
            try makeTestCamera("\(label) \(index)") { configuration in
                configuration.sizes = [size]
                configuration.pixelFormats = [.yuyv422]
                configuration.frameRates = [30]
                configuration.bus = bus
            }
        }
    }

    static func session(with cameras: [CaptureDevice]) throws -> (CaptureMultiCamSession, [CaptureDeviceInput]) {
        let session = CaptureMultiCamSession()
        let inputs = try cameras.map { try CaptureDeviceInput(device: $0) }
        return (session, inputs)
    }

    @Test func twoUncompressed1080pCamerasOnOneUSB2BusAreRefusedWithTheReason() throws {
        let cameras = try Self.cameras(2, on: Self.usb1, size: VideoDimensions(width: 1920, height: 1080), label: "cost 1080p")
        defer { for camera in cameras { CaptureDevice.removeVirtualDevice(camera) } }
        let (session, inputs) = try Self.session(with: cameras)
        do {
            try session.configure { for input in inputs { try session.addInputWithNoConnections(input) } }
            Issue.record("two 1080p YUYV cameras fitted on one USB 2 bus")
        } catch let error as CaptureError {
            #expect(error.code == .insufficientBandwidth)
            #expect(error.message.contains("usb1"), "\(error.message)")
            for camera in cameras { #expect(error.message.contains(camera.localizedName), "\(error.message)") }
            #expect(error.message.contains("124.4 MB/s"), "1920×1080×2 bytes × 30 fps: \(error.message)")
        }
        #expect(session.inputs.isEmpty, "the refused configuration was rolled back")
        #expect(session.state == .idle)
    }

    @Test func twoVGACamerasFitAndAThirdDoesNot() throws {
        let cameras = try Self.cameras(3, on: Self.usb1, size: VideoDimensions(width: 640, height: 480), label: "cost vga")
        defer { for camera in cameras { CaptureDevice.removeVirtualDevice(camera) } }
        let (session, inputs) = try Self.session(with: cameras)
        try session.configure { for input in inputs.prefix(2) { try session.addInputWithNoConnections(input) } }
        // 640×480×2 × 30 = 18.432 MB/s each; 36.864 of the 48 MB/s a USB 2 bus gives cameras.
        #expect(abs(Double(session.hardwareCost) - 36.864 / 48) < 0.001, "\(session.hardwareCostReport)")
        #expect(session.hardwareCostReport.problem == nil)
        #expect(session.hardwareCostReport.demands.map(\.bytesPerSecond) == [18_432_000, 18_432_000])
        do {
            try session.addInputWithNoConnections(inputs[2])
            Issue.record("three VGA YUYV cameras fitted on one USB 2 bus")
        } catch { #expect(error.code == .insufficientBandwidth) }
        #expect(session.inputs.count == 2)
    }

    @Test func camerasOnDifferentBusesOrNoBusDoNotAddUp() throws {
        let size = VideoDimensions(width: 640, height: 480)
        let a = try Self.cameras(2, on: Self.usb1, size: size, label: "cost bus1")
        let b = try Self.cameras(1, on: CaptureDevice.Bus(id: "usb3", speed: .usbHigh), size: size, label: "cost bus3")
        let free = try Self.cameras(2, on: nil, size: VideoDimensions(width: 1920, height: 1080), label: "cost nobus")
        let all = a + b + free
        defer { for camera in all { CaptureDevice.removeVirtualDevice(camera) } }
        let (session, inputs) = try Self.session(with: all)
        try session.configure { for input in inputs { try session.addInputWithNoConnections(input) } }
        #expect(session.hardwareCostReport.demands.count == 3, "cameras on no bus are not counted")
        #expect(session.hardwareCost < 1)
    }

    /// The bus a V4L2 camera is on comes from the USB device above its node in sysfs.
    @Test func sysfsGivesTheUSBBusAndSpeed() throws {
        let root = FileFixtures.directory.appendingPathComponent("sysfs-\(UUID().uuidString.prefix(8))").path
        let usbDevice = "\(root)/devices/pci0000:00/0000:00:14.0/usb2/2-1"
        let interface = "\(usbDevice)/2-1:1.0"
        let node = "\(interface)/video4linux/video7"
        try FileManager.default.createDirectory(atPath: node, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/class/video4linux/video7", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(root)/class/video4linux/video7/device", withDestinationPath: interface)
        for (name, value) in ["idVendor": "046d", "idProduct": "0825", "busnum": "2", "speed": "480", "removable": "removable"] {
            try value.write(toFile: "\(usbDevice)/\(name)", atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let info = V4L2SysfsInfo.read(node: "video7", sysRoot: root)
        #expect(info.vendorProduct == "046d:0825")
        #expect(info.bus == CaptureDevice.Bus(id: "usb2", speed: .usbHigh))
    }
}
