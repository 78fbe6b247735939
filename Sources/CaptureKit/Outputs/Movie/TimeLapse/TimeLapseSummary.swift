/// How a time-lapse ended: what it made and why it stopped.
///
/// ```swift
/// let timeLapseOutput = CaptureTimeLapseOutput()
/// let summary = await timeLapseOutput.finish()
/// print(summary.statistics.shots, "shots,", summary.statistics.missedSlots, "missed")
/// if let movie = summary.movie { print(movie.url.path, movie.videoFrameCount, "frames") }
/// if let error = summary.error { print("ended early:", error.message) }
/// ```
public struct TimeLapseSummary: Sendable {
    /// The counts at the end.
    public let statistics: CaptureTimeLapseOutput.Statistics
    /// The finished time-lapse movie, when one was made; its `error` says why it ended early.
    public let movie: RecordedMovie?
    /// Why the time-lapse ended, if not because it was stopped or reached its limit: a photo
    /// or the movie could not be written (`.diskFull`, `.fileError`), or the session stopped
    /// (`.sessionStopped`, with ``CaptureError/recordingSuccessfullyFinished`` true: what was
    /// made is complete). Nil for a time-lapse that ended as asked.
    public let error: CaptureError?
}
