/// Hears what a ``CaptureTimeLapseOutput`` does, on the queue given with the delegate, in
/// order (the same as ``TimeLapseEvent``). Every method has an empty default.
///
/// ```swift
/// final class Greenhouse: CaptureTimeLapseOutputDelegate {
///     func timeLapseOutput(_ output: CaptureTimeLapseOutput, didTake shot: TimeLapseShot) {
///         print("shot \(shot.slot):", shot.photoURL?.path ?? "")
///     }
///     func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinish summary: TimeLapseSummary) {
///         print(summary.statistics.shots, "shots,", summary.statistics.missedSlots, "missed")
///     }
/// }
/// ```
public protocol CaptureTimeLapseOutputDelegate: AnyObject, Sendable {
    /// The first frame laid the grid: slot 0 is due at `origin`.
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didStartAt origin: MediaTime)
    /// A shot was taken and saved.
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didTake shot: TimeLapseShot)
    /// Slots passed without a shot.
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didMiss miss: TimeLapseMiss)
    /// The movie is closed (complete, or failed: see ``TimeLapseEvent/movieFinished(_:)``).
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinishMovie movie: RecordedMovie)
    /// The time-lapse ended; nothing follows.
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinish summary: TimeLapseSummary)
}

extension CaptureTimeLapseOutputDelegate {
    public func timeLapseOutput(_ output: CaptureTimeLapseOutput, didStartAt origin: MediaTime) {}
    public func timeLapseOutput(_ output: CaptureTimeLapseOutput, didTake shot: TimeLapseShot) {}
    public func timeLapseOutput(_ output: CaptureTimeLapseOutput, didMiss miss: TimeLapseMiss) {}
    public func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinishMovie movie: RecordedMovie) {}
    public func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinish summary: TimeLapseSummary) {}
}
