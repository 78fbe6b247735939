import Foundation
import Testing

/// `capture frames`' report.
@Suite(.serialized, .tags(.realTime))
struct FramesCommandTests {
    /// One frame is enough for the time to the first frame (capture-bench's `first-frame` asks
    /// for it): it arrives after the session started, within the wait the command allows.
    @Test func oneFrameReportsTheTimeToTheFirstFrame() throws {
        let result = try CaptureTool.run(["frames", "--device", "virtual-camera", "--count", "1", "--size", "640x480",
                                          "--fps", "30", "--json"])
        #expect(result.status == 0, "\(result)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result)")
        #expect(report["frames"] as? Int == 1, "\(report)")
        let first = try #require(report["firstFrameMs"] as? Double, "\(report)")
        // The command waits 3 frame intervals plus 5 s for its frames before it gives up.
        #expect(first > 0 && first < 5_100, "\(report)")
        let none = try CaptureTool.run(["frames", "--count", "0"])
        #expect(none.status == 64 && none.errors.contains("1...100000"), "\(none)")
    }
}
