import Foundation

/// A finished segment of a segmented recording.
public struct MovieSegment: Sendable, Hashable {
    /// The movie file.
    public let url: URL
    /// When its first frame was captured, on the wall clock.
    public let startDate: Date
    /// When its first frame was captured, on the session clock.
    public let startTime: MediaTime
    /// How long its picture plays: up to where the next segment starts.
    public let duration: MediaTime
    /// Video frames in it.
    public let videoFrameCount: Int
    /// Its size in bytes.
    public let fileSize: Int64
}

/// What a segmented recording tells about its files
/// (``CaptureMovieFileOutput/segmentEvents``).
public enum MovieSegmentEvent: Sendable {
    /// A segment was opened: its file and the session-clock time of its first frame.
    case started(url: URL, startTime: MediaTime)
    /// A segment is complete: an ordinary movie that plays alone.
    case finished(MovieSegment)
    /// A segment could not be finished; what was written of it stays playable up to its last
    /// fragment. The recording ends with the same error.
    case failed(url: URL, error: CaptureError)
    /// Retention deleted an old segment.
    case deleted(url: URL)
}
