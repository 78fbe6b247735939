import Foundation
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
}
