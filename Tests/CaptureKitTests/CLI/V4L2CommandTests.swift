import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// `capture controls` as a user runs it: a device without controls says so, and changing a
/// control it does not have fails with the reason.
@Suite("V4L2Command", .tags(.childProcess), .excludable)
struct V4L2CommandTests {
    /// `capture` with its standard output and error together, as a user reads them.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try CaptureTool.run(arguments)
        return (result.status, result.output + result.errors)
    }

    @Test func controlsOfADeviceWithoutControls() throws {
        let listed = try run(["controls", "virtual-camera"])
        #expect(listed.status == 0)
        #expect(listed.output.contains("(no controls)"))
        let set = try run(["controls", "virtual-camera", "--set", "brightness=1"])
        #expect(set.status != 0)
        #expect(set.output.contains("has no control 'brightness'"), "\(set.output)")
        let malformed = try run(["controls", "virtual-camera", "--set", "brightness"])
        #expect(malformed.status == 64)
        #expect(malformed.output.contains("NAME=VALUE"))
    }

    /// A node path is resolved by the library (`CaptureDevice.device(resolving:)`): on a
    /// machine without cameras the error says the node is not there, rather than listing
    /// unique IDs the user did not type. The kernel's own nodes are resolved in the VM
    /// (`ResolvingTests`).
    @Test(.enabled(if: access("/dev/video0", F_OK) != 0, "this host has cameras"))
    func aMissingNodePathSaysSo() throws {
        for arguments in [["formats", "/dev/video0"], ["frames", "--device", "/dev/video0", "--count", "2"]] {
            let result = try run(arguments)
            #expect(result.status == 69, "\(arguments): \(result.output)")
            #expect(result.output.contains("no camera at /dev/video0 (errno 2: No such file or directory)"), "\(arguments): \(result.output)")
        }
        let front = try run(["formats", "virtual-front-camera"])
        #expect(front.status == 0)
        #expect(front.output.hasPrefix("Virtual Front Camera [virtual-front-camera]"), "\(front.output)")
    }
}
