import Foundation
import Testing

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// The harness itself: the devices scripts/vm/run.sh promises are there, as v4l2-ctl sees
    /// them. When this fails, the other suites' failures are about the VM, not CaptureKit.
    @Suite struct VMHarnessTests {
        @Test func vividAndLoopbackNodesArePresent() throws {
            try #require(VMEnvironment.vividNodes.count == 4, "CAPTUREKIT_VM_VIVID: \(VMEnvironment.vividNodes)")
            for node in VMEnvironment.vividNodes {
                let info = try V4L2Ctl.driverInfo(node)
                #expect(info.driver == "vivid", "\(node): \(info)")
            }
            let loopback = try V4L2Ctl.driverInfo(VMEnvironment.loopbackNode)
            #expect(loopback.driver == "v4l2 loopback")
            #expect(loopback.card == "CaptureKit Loopback")
            // The producer has set the format, so the loopback node is a capture device now.
            #expect(try V4L2Ctl.formats(VMEnvironment.loopbackNode).map(\.fourCC) == ["MJPG"])
            #expect(FileManager.default.fileExists(atPath: VMEnvironment.mjpegReference))
        }
    }
}
