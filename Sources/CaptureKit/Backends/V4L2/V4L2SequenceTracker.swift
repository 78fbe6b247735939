/// Counts the frames a driver skipped, from the jumps in its buffer sequence numbers.
struct V4L2SequenceTracker: Sendable {
    private var last: UInt32?

    /// Notes frame `sequence`; returns how many frames were skipped since the previous one.
    /// A sequence that goes backwards (the driver restarted counting) skips nothing.
    mutating func record(_ sequence: UInt32) -> Int {
        defer { last = sequence }
        guard let last, sequence > last else { return 0 }
        return Int(sequence - last - 1)
    }
}
