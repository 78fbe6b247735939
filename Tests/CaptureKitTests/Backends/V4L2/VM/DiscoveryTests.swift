import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// The kernel's cameras found through the public discovery API, checked against what
    /// v4l2-ctl says about each node.
    @Suite struct DiscoveryTests {
        @Test func fourVividCamerasAndOneLoopbackCamera() throws {
            #expect(VMEnvironment.vividNodes.count == 4, "the harness loads vivid with n_devs=4")
            let hardware = CaptureDevice.DiscoverySession(deviceTypes: [.external, .builtInWideAngleCamera], mediaType: .video, position: .unspecified).devices
            let vivid = hardware.filter { $0.modelID == "vivid" }
            let loopback = hardware.filter { $0.modelID == "v4l2 loopback" }
            #expect(vivid.count == 4, "vivid cameras: \(vivid)")
            #expect(loopback.count == 1, "loopback cameras: \(loopback)")
            #expect(hardware.count == 5, "every V4L2 camera: \(hardware)")
            #expect(Set(hardware.map(\.uniqueID)).count == hardware.count, "unique IDs must differ")

            for node in VMEnvironment.vividNodes + [VMEnvironment.loopbackNode] {
                let device = try VMEnvironment.device(at: node)
                let info = try V4L2Ctl.driverInfo(node)
                #expect(device.localizedName == info.card)
                #expect(device.uniqueID.contains(info.busInfo), "\(device.uniqueID) should name the bus \(info.busInfo)")
                #expect(device.modelID == info.driver)
                #expect(device.isConnected)
                #expect(device.hasMediaType(.video))
                #expect(device.position == .unspecified, "vivid and v4l2loopback have no physical location")
            }
            // The default camera is a real one once there is one.
            let preferred = try #require(CaptureDevice.default(for: .video))
            #expect(!preferred.isVirtual)
        }

        /// A second discovery finds the same devices under the same unique IDs: IDs come from
        /// the bus and card, not from the /dev node number.
        @Test func uniqueIDsAreStable() throws {
            let first = try VMEnvironment.vividNodes.map { try VMEnvironment.device(at: $0).uniqueID }
            let again = try VMEnvironment.vividNodes.map { node in
                try #require(CaptureDevice.device(uniqueID: first[VMEnvironment.vividNodes.firstIndex(of: node)!])).uniqueID
            }
            #expect(first == again)
            #expect(!first.contains { $0.contains("/dev/video") })
        }
    }
}
