/// What a ``CaptureTimeLapseOutput`` reports on its ``CaptureTimeLapseOutput/events`` streams,
/// in order: the same as its delegate hears.
///
/// ```swift
/// func follow(_ timeLapse: CaptureTimeLapseOutput) async {
///     for await event in timeLapse.events {
///         switch event {
///         case .started(let origin): print("slot 0 at", origin.seconds)
///         case .shotTaken(let shot): print("shot", shot.slot)
///         case .slotsMissed(let miss): print("missed", miss.count)
///         case .movieFinished(let movie): print(movie.url.path, movie.error?.message ?? "complete")
///         case .finished(let summary): print(summary.statistics.shots, "shots"); return
///         }
///     }
/// }
/// ```
public enum TimeLapseEvent: Sendable {
    /// The first frame arrived and laid the grid: slot 0 is due at `origin` (the frame's
    /// capture time, or the next whole multiple of the interval in local time).
    case started(origin: MediaTime)
    /// A shot was taken and saved.
    case shotTaken(TimeLapseShot)
    /// Slots passed without a shot.
    case slotsMissed(TimeLapseMiss)
    /// The time-lapse movie is closed: complete, or — with an `error` whose
    /// ``CaptureError/recordingSuccessfullyFinished`` is false — failed, playable up to its
    /// last fragment.
    case movieFinished(RecordedMovie)
    /// The time-lapse ended; nothing follows.
    case finished(TimeLapseSummary)
}
