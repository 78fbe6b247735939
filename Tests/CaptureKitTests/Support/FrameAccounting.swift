@testable import CaptureKit

/// What a sample-buffer delegate heard, in order.
enum DeliveryEvent: Sendable {
    case sample(ReceivedSample)
    case drop(DroppedFrame)
}

/// The promise a loaded machine cannot break: every sample the device produced up to the last
/// one delivered was either delivered or reported dropped (for any reason: late, out of
/// buffers, skipped by the device). Checked by sequence number: the drops reported between two
/// delivered samples must cover exactly the numbers between them. Independent of how many were
/// dropped, which is the machine's business, not the library's.
struct FrameAccounting: Sendable, CustomStringConvertible {
    /// Samples delivered.
    private(set) var delivered = 0
    /// Samples reported dropped before the last delivered one.
    private(set) var dropped = 0
    /// Sequence numbers from the first produced (the first delivered, less the drops reported
    /// before it) to the last delivered.
    private(set) var produced = 0
    /// Places where the numbers between two delivered samples differ from the drops reported
    /// between them: (sequence number expected next, drops reported, sequence number delivered).
    private(set) var mismatches: [(expected: UInt64, reported: Int, got: UInt64)] = []

    /// Every produced sample is delivered or reported, and nothing is counted twice.
    var isComplete: Bool { mismatches.isEmpty && delivered + dropped == produced }

    init(_ events: [DeliveryEvent]) {
        var first: UInt64?
        var next: UInt64 = 0
        var pending = 0
        for event in events {
            switch event {
            case .drop(let frame):
                pending += frame.count
            case .sample(let received):
                let number = received.sequenceNumber
                if first == nil {
                    first = number >= UInt64(pending) ? number - UInt64(pending) : 0
                } else if number != next + UInt64(pending) {
                    mismatches.append((next, pending, number))
                }
                delivered += 1
                dropped += pending
                pending = 0
                next = number + 1
            }
        }
        if let first { produced = Int(next - first) }
    }

    var description: String {
        "\(delivered) delivered + \(dropped) reported dropped of \(produced) produced"
            + (mismatches.isEmpty ? "" : "; unaccounted: \(mismatches.prefix(5).map { "expected \($0.expected)+\($0.reported) dropped, got \($0.got)" })")
    }
}
