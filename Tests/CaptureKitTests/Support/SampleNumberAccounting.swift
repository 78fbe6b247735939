@testable import CaptureKit

/// ``FrameAccounting`` for audio whose sequence numbers count samples, lost ones included (the
/// sound-server backend): between two delivered buffers, the sample numbers skipped are exactly
/// the samples the device reported lost in between (`.discontinuity` drops count samples), and
/// more than that only where the output reported dropping whole buffers too (those reports
/// count buffers, whose lengths they do not say). Timestamps are not looked at: a sound server's
/// buffers may be re-aligned to its clock without losing anything (see ``AudioCaptureTimes``).
/// Independent of how much was lost: `#expect(acc.isComplete, "\(acc)")`.
struct SampleNumberAccounting: Sendable, CustomStringConvertible {
    /// Buffers delivered.
    private(set) var delivered = 0
    /// Samples from the first delivered buffer's first to the last one's last.
    private(set) var span: UInt64 = 0
    /// Samples the device reported lost between delivered buffers.
    private(set) var lost = 0
    /// Buffers the output reported dropping between delivered buffers.
    private(set) var droppedBuffers = 0
    /// Where the numbers skipped do not match the reports: (sample number expected next,
    /// samples reported lost, buffers reported dropped, sample number delivered).
    private(set) var mismatches: [(expected: UInt64, lost: Int, buffers: Int, got: UInt64)] = []

    /// Something was delivered, and every skipped sample number was reported.
    var isComplete: Bool { delivered > 0 && mismatches.isEmpty }

    init(_ events: [DeliveryEvent]) {
        var next: UInt64?
        var first: UInt64?
        var pendingSamples = 0, pendingBuffers = 0
        for event in events {
            switch event {
            case .drop(let frame):
                if frame.reason == .discontinuity { pendingSamples += frame.count } else { pendingBuffers += frame.count }
            case .sample(let received):
                let number = received.sequenceNumber
                let frames = UInt64(received.sample.audioBuffer?.frameCount ?? 0)
                if let expected = next {
                    let skipped = number >= expected ? Int(number - expected) : -1
                    let accounted = pendingBuffers == 0 ? skipped == pendingSamples : skipped > pendingSamples
                    if !accounted { mismatches.append((expected, pendingSamples, pendingBuffers, number)) }
                    lost += pendingSamples
                    droppedBuffers += pendingBuffers
                }
                first = first ?? number
                delivered += 1
                pendingSamples = 0
                pendingBuffers = 0
                next = number + frames
            }
        }
        if let first, let next { span = next - first }
    }

    var description: String {
        "\(delivered) buffers over \(span) samples, \(lost) samples reported lost, \(droppedBuffers) buffers reported dropped"
            + (mismatches.isEmpty ? "" : "; unaccounted: \(mismatches.prefix(5).map { "expected \($0.expected) + \($0.lost) lost (+\($0.buffers) buffers), got \($0.got)" })")
    }
}
