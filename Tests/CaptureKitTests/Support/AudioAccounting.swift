@testable import CaptureKit

/// ``FrameAccounting`` for audio, by time rather than by sequence number: consecutive buffers
/// join exactly (each starts where the previous one ends) unless a drop was reported between
/// them, and then the gap is exactly the reported count times the buffer duration. The virtual
/// microphone reports `droppedFrames(count:)` in buffers of its own (VirtualStream skips whole
/// periods), so the unit is the previous buffer's duration unless `dropUnit` says otherwise
/// (an output that converts the rate still counts drops in the device's buffers). Independent of
/// how much was dropped, which is the machine's business: `#expect(acc.isComplete, "\(acc)")`.
///
/// `slack` loosens only the gaps where drops were reported, never a join: a rate converter
/// restarts at a gap on the new rate's grid (rounding by a frame) and does not hand over the few
/// frames its filter still holds, so its gaps match the drops to within its filter's delay.
struct AudioAccounting: Sendable, CustomStringConvertible {
    /// Buffers delivered.
    private(set) var delivered = 0
    /// Buffers reported dropped between the first and the last delivered one.
    private(set) var dropped = 0
    /// From the first delivered buffer's start to the last one's end.
    private(set) var span: MediaTime = .zero
    /// Places where the time between two delivered buffers is not what the drops reported
    /// between them account for: (end of the earlier buffer, start expected, start delivered).
    private(set) var mismatches: [(after: MediaTime, expected: MediaTime, got: MediaTime)] = []

    /// Something was delivered, and every gap between buffers is a reported drop, exactly.
    var isComplete: Bool { delivered > 0 && mismatches.isEmpty }

    init(_ events: [DeliveryEvent], dropUnit: MediaTime? = nil, slack: MediaTime = .zero) {
        var previous: SampleBuffer?
        var first: MediaTime?
        var pending = 0
        for event in events {
            switch event {
            case .drop(let frame):
                pending += frame.count
            case .sample(let received):
                let sample = received.sample
                if let previous {
                    let end = previous.presentationTimeStamp + previous.duration
                    let expected = end + (dropUnit ?? previous.duration) * Int64(pending)
                    let off = sample.presentationTimeStamp - expected
                    let tolerated = pending > 0 && off <= slack && expected - sample.presentationTimeStamp <= slack
                    if off != .zero && !tolerated { mismatches.append((end, expected, sample.presentationTimeStamp)) }
                    dropped += pending
                }
                first = first ?? sample.presentationTimeStamp
                delivered += 1
                pending = 0
                previous = sample
            }
        }
        if let first, let previous { span = previous.presentationTimeStamp + previous.duration - first }
    }

    var description: String {
        "\(delivered) buffers delivered + \(dropped) reported dropped over \(span.seconds) s"
            + (mismatches.isEmpty ? "" : "; unaccounted: \(mismatches.prefix(5).map { "after \($0.after) expected \($0.expected), got \($0.got)" })")
    }
}
