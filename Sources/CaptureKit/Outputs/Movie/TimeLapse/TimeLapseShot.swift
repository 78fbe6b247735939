import Foundation

/// One shot a ``CaptureTimeLapseOutput`` took: which slot of the schedule it serves, when its
/// frame was captured, and where it went.
///
/// ```swift
/// func report(_ shot: TimeLapseShot) {
///     let late = (shot.captureTime - shot.slotTime).seconds
///     print("slot \(shot.slot) at \(shot.date): \(late) s after its time, \(shot.photoURL?.path ?? "no photo")")
/// }
/// ```
public struct TimeLapseShot: Sendable {
    /// The slot's index: it was due at ``slotTime``, exactly `origin + slot × interval`.
    public let slot: Int
    /// When the slot was due, on the session clock.
    public let slotTime: MediaTime
    /// When its frame was captured (the frame's `presentationTimeStamp`): the first frame at or
    /// after ``slotTime``, within the schedule's tolerance.
    public let captureTime: MediaTime
    /// The wall-clock date of ``captureTime`` (the photo's EXIF `DateTimeOriginal`).
    public let date: Date
    /// The photo's file (in the folder, or the library's file), when photos are taken.
    public let photoURL: URL?
    /// The photo in the media library, when photos go to one.
    public let asset: MediaAsset?
    /// The frame's index in the time-lapse movie, when one is made: the slot's place among the
    /// slots inside the daily windows, so a missed slot leaves its frame empty (the picture
    /// before it stays one frame longer) and the movie never drifts from the schedule.
    public let movieFrame: Int?
}
