import Foundation

/// A finished pre-roll clip.
public struct PreRollClip: Sendable, Hashable {
    /// The movie file.
    public let url: URL
    /// What the first trigger said (also the movie's comment).
    public let reason: String
    /// The capture time of the first trigger (the session clock).
    public let triggerTime: MediaTime
    /// The capture time of the clip's first frame, a keyframe at or before
    /// (trigger − pre-roll).
    public let startTime: MediaTime
    /// How long the clip plays.
    public let duration: MediaTime
    /// A JPEG of the frame the trigger came at (320 pixels wide at most), beside the clip in
    /// the clip folder (`clip-….jpg`); nil when it could not be made.
    public let thumbnailURL: URL?
    /// The clip's media-library asset, when the output saves clips into a library
    /// (``CapturePreRollOutput/setClipLibrary(_:)``); ``url`` is then the asset's file.
    public let asset: MediaAsset?
}

/// What a ``CapturePreRollOutput`` tells about its clips.
public enum PreRollEvent: Sendable {
    /// A trigger opened a clip: its file, the trigger's reason and capture time, and the capture
    /// time of the clip's first frame.
    case started(url: URL, reason: String, triggerTime: MediaTime, startTime: MediaTime)
    /// The clip is complete.
    case finished(PreRollClip)
    /// The clip could not be written (the recording under it goes on); what was written of it
    /// before the failure stays playable.
    case failed(url: URL, reason: String, error: CaptureError)
}

/// Hears a ``CapturePreRollOutput``'s events on the queue given to
/// ``CapturePreRollOutput/setDelegate(_:queue:)``.
public protocol CapturePreRollOutputDelegate: AnyObject, Sendable {
    /// A clip started, finished or failed.
    func preRollOutput(_ output: CapturePreRollOutput, didOutput event: PreRollEvent)
}
