import Foundation

/// How ``CaptureMovieFileOutput/startRecording(toFolder:segmentation:recordingDelegate:queue:)``
/// splits a recording into files: what a dashcam or an NVR does.
///
/// Segments last ``duration`` each and, with ``alignsToClock``, start on the wall clock's
/// multiples of it (a 60 s segment at every whole minute), except the first, which starts with
/// the recording. Each starts on a keyframe: the encoder makes one at the boundary, and a camera's
/// own H.264/HEVC stored as it came is cut at its first keyframe after it. Retention keeps the
/// folder within ``maximumAge`` and ``maximumBytes``, deleting the oldest whole segments first.
public struct MovieSegmentation: Sendable, Hashable {
    /// How long each segment lasts (60 s by default; at least 1 s).
    public var duration: MediaTime = MediaTime(value: 60, timescale: 1)
    /// Whether segments start at the wall clock's multiples of ``duration`` (the default), not
    /// at multiples of it from the recording's start.
    public var alignsToClock = true
    /// The container of every segment (`"mp4"` by default; `"mov"` or `"mkv"`).
    public var fileExtension = "mp4"
    /// What segment names start with: `<prefix>-YYYYMMDD-HHMMSS.<extension>`, the time the
    /// segment starts (local time).
    public var namePrefix = "segment"
    /// Segments that started longer ago than this (before the newest one's start) are deleted;
    /// nil keeps them however old.
    public var maximumAge: Duration?
    /// The most bytes the folder's segments may take: past it the oldest are deleted; nil
    /// for no limit. The segment being written is never deleted.
    public var maximumBytes: Int64?

    /// One-minute MP4 segments on the minute, kept forever.
    public init() {}
}
