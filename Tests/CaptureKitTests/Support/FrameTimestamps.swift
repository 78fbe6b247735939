@testable import CaptureKit

/// The timing promise a loaded machine cannot break, for video frames as a delegate received
/// them: a frame's time is its capture time, never its delivery time. So consecutive delivered
/// frames are exactly as many frame durations apart as their sequence numbers are, every frame
/// lasts one frame duration, and none arrives before its capture ended (its time plus its
/// duration, on the monotonic clock). How late frames arrive is the machine's business and is
/// not checked. Use beside ``FrameAccounting``: `#expect(times.isExact, "\(times)")`.
struct FrameTimestamps: Sendable, CustomStringConvertible {
    /// What broke the promise, one line per frame (empty when the timestamps are exact).
    private(set) var problems: [String] = []

    /// Whether every frame kept the promise.
    var isExact: Bool { problems.isEmpty }

    init(_ frames: [ReceivedSample], frameDuration: MediaTime) {
        for frame in frames {
            if frame.sample.duration != frameDuration {
                problems.append("frame \(frame.sequenceNumber) lasts \(frame.sample.duration), not \(frameDuration)")
            }
            // Half a millisecond absorbs only the rounding of times to nanoseconds.
            if let captured = (frame.sample.presentationTimeStamp + frame.sample.duration).nanoseconds,
               frame.arrival < captured - 500_000 {
                problems.append("frame \(frame.sequenceNumber) arrived \(Double(captured - frame.arrival) / 1e6) ms before its capture ended")
            }
        }
        for (previous, next) in zip(frames, frames.dropFirst()) {
            guard next.sequenceNumber > previous.sequenceNumber else {
                problems.append("frame \(next.sequenceNumber) delivered after frame \(previous.sequenceNumber)")
                continue
            }
            let frames = Int64(next.sequenceNumber - previous.sequenceNumber)
            let step = next.sample.presentationTimeStamp - previous.sample.presentationTimeStamp
            if step != frameDuration * frames {
                problems.append("frames \(previous.sequenceNumber) → \(next.sequenceNumber) are \(step) apart, not \(frames) × \(frameDuration)")
            }
            if next.arrival < previous.arrival {
                problems.append("frame \(next.sequenceNumber) arrived before frame \(previous.sequenceNumber)")
            }
        }
    }

    var description: String {
        problems.isEmpty ? "exact" : "\(problems.count) timing problems: \(problems.prefix(5).joined(separator: "; "))"
    }
}
