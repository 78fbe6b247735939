import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// The kernel's nodes named as Linux users name them: `/dev/videoN` and udev's links to it,
    /// through the library and through `capture`.
    @Suite struct ResolvingTests {
        @Test func nodePathsAndUdevLinksResolveToTheirCamera() throws {
            for node in VMEnvironment.vividNodes + [VMEnvironment.loopbackNode] {
                let device = try VMEnvironment.device(at: node)
                #expect(try CaptureDevice.device(resolving: node) === device, "\(node)")
                #expect(try CaptureDevice.device(resolving: node, mediaType: .video) === device, "\(node)")
                for folder in ["/dev/v4l/by-path", "/dev/v4l/by-id"] {
                    let links = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                    for link in links.map({ "\(folder)/\($0)" })
                    where URL(fileURLWithPath: link).resolvingSymlinksInPath().path == node {
                        #expect(try CaptureDevice.device(resolving: link) === device, "\(link) → \(node)")
                    }
                }
            }
        }

        @Test func captureTakesANodePathForADevice() throws {
            let node = VMEnvironment.vivid(0)
            let device = try VMEnvironment.device(at: node)
            let formats = try CaptureTool.run(["formats", node])
            #expect(formats.status == 0, "\(formats)")
            #expect(formats.output.hasPrefix("\(device.localizedName) [\(device.uniqueID)]"), "\(formats)")
            let frames = try CaptureTool.run(["frames", "--device", node, "--count", "3", "--json"])
            #expect(frames.status == 0, "\(frames)")
            let missing = try CaptureTool.run(["formats", "/dev/video63"])
            #expect(missing.status == 69 && missing.errors.contains("no camera at /dev/video63"), "\(missing)")
        }
    }
}
