import Foundation

/// What a ``CaptureMotionOutput`` saw: motion beginning, going on, or ending.
///
/// Boxes and points are in metadata coordinates, as ``MetadataObject/bounds`` (0...1 over the
/// picture as the connection's rotation and mirroring show it, origin top left), so a box can
/// be drawn over a preview or compared with a code's bounds directly.
public struct MotionEvent: Sendable, Hashable {
    /// Where in an episode of motion the event is.
    public enum Phase: Sendable, Hashable {
        /// The first frame with motion after a quiet spell (or after the output started).
        case began
        /// A further frame with motion.
        case changed
        /// No frame has had motion for the output's ``CaptureMotionOutput/quietPeriod``; the
        /// event's time is the first quiet frame's after the last motion. Carries no boxes.
        case ended
    }

    /// Where the episode is.
    public let phase: Phase
    /// The capture time of the frame the event is about (the session clock, as every sample's
    /// `presentationTimeStamp`).
    public let presentationTimeStamp: MediaTime
    /// The changed share of the watched picture, 0...1 (0 for `.ended`).
    public let score: Double
    /// Around each changed area, largest first, in metadata coordinates.
    public let boxes: [CGRect]
}
