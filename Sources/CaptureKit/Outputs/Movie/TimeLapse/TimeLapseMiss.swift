/// Slots of a time-lapse schedule that passed without a shot.
///
/// A time-lapse never catches up on a missed slot: the next shot stays on the grid, and the
/// miss is counted here (and in ``CaptureTimeLapseOutput/Statistics/missedSlots``).
///
/// ```swift
/// func report(_ miss: TimeLapseMiss) {
///     print("missed \(miss.count) shot(s) in slots \(miss.slots) (\(miss.reason))")
/// }
/// ```
public struct TimeLapseMiss: Sendable, Hashable {
    /// Why the slots were missed.
    public enum Reason: Sendable, Hashable {
        /// No frame was captured within the tolerance of the slot: the device stalled, was
        /// away, or skipped frames.
        case late
        /// The frame came in time, but the output was still saving or encoding an earlier shot
        /// (a slow disk or encoder): the camera is never held up for a shot.
        case busy
    }

    /// The slots passed, in order; those outside the daily windows among them are not counted.
    public let slots: Range<Int>
    /// How many shots were missed: the slots inside the daily windows.
    public let count: Int
    /// Why.
    public let reason: Reason
}
