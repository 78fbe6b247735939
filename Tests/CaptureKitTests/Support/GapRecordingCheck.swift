import Foundation
import Testing
@testable import CaptureKit

/// What every recording made through a device's loss and return (`.continueRecording`)
/// promises: it finished without error, has a gap, decodes with `ffmpeg -xerror`, and holds
/// every frame it counted. Returns how many of its frames lie before and after the gap.
func checkRecordingAcrossAGap(_ url: URL, _ recorded: RecordedMovie,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> (before: Int, after: Int) {
    #expect(recorded.error == nil, "\(String(describing: recorded.error))", sourceLocation: sourceLocation)
    let gap = try #require(recorded.videoGaps.first, "no gap recorded: \(recorded)", sourceLocation: sourceLocation)
    try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
    let packets = try ProbedMovie.videoTimestamps(url.path)
    #expect(packets.count == recorded.videoFrameCount, sourceLocation: sourceLocation)
    return (packets.filter { $0 < gap.start.seconds }.count,
            packets.filter { $0 >= (gap.start + gap.duration).seconds - 0.001 }.count)
}
