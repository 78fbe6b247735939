import Foundation
import Testing
@testable import CaptureKit

/// What scripts/vm/run.sh tells the integration suites about the VM they run in: the suites run
/// only there (`CAPTUREKIT_VM=1`), and there a missing device is a failure, never a skip.
enum VMEnvironment {
    private static let environment = ProcessInfo.processInfo.environment

    /// Whether this process runs inside the test VM (set by the VM harness only).
    static let isEnabled = environment["CAPTUREKIT_VM"] == "1"

    /// The vivid capture nodes, one per vivid instance (`/dev/video0 /dev/video1`).
    static let vividNodes: [String] = (environment["CAPTUREKIT_VM_VIVID"] ?? "").split(separator: " ").map(String.init)

    /// The node of vivid instance `index`; when the harness named none, a path that makes every
    /// use of it fail (rather than trap).
    static func vivid(_ index: Int) -> String {
        vividNodes.indices.contains(index) ? vividNodes[index] : "/nonexistent/vivid-\(index)-missing-from-CAPTUREKIT_VM_VIVID"
    }

    /// The v4l2loopback node the harness's MJPEG producer feeds.
    static let loopbackNode = environment["CAPTUREKIT_VM_LOOPBACK"] ?? ""

    /// The JPEG the producer serves on every frame.
    static let mjpegReference = environment["CAPTUREKIT_VM_MJPEG_REFERENCE"] ?? ""

    /// The V4L2 device behind `node`, found through the public discovery API by the bus info
    /// v4l2-ctl reports for the node; fails the test when it is missing.
    static func device(at node: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> CaptureDevice {
        let info = try V4L2Ctl.driverInfo(node)
        let matches = CaptureDevice.allDevices.filter { device in
            device.hasMediaType(.video) && !device.isVirtual && (device.backend as? V4L2DeviceBackend)?.devicePath == node
        }
        return try #require(matches.count == 1 ? matches.first : nil,
                            "expected exactly one CaptureDevice for \(node) (\(info.card), \(info.busInfo)); found \(matches.map(\.uniqueID))",
                            sourceLocation: sourceLocation)
    }
}
