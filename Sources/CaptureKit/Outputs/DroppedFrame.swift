/// A sample an output could not deliver (the `didDrop` of `AVCaptureVideoDataOutput`).
///
/// ```swift
/// final class Frames: SampleBufferDelegate {
///     func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {}
///     func captureOutput(_ output: CaptureOutput, didDrop frame: DroppedFrame, from connection: CaptureConnection) {
///         print("lost \(frame.count) at \(frame.presentationTimeStamp.seconds) s: \(frame.reason)")
///     }
/// }
/// ```
public struct DroppedFrame: Sendable, Hashable {
    /// Why a sample was dropped (`kCMSampleBufferDroppedFrameReason_*`).
    public enum Reason: String, Sendable, Hashable {
        /// The consumer was still busy and a newer sample replaced this one
        /// (`alwaysDiscardsLateVideoFrames`).
        case frameWasLate
        /// The output's queue was full (late frames are kept, but only so many).
        case outOfBuffers
        /// The device itself skipped samples; the count is in ``count``.
        case discontinuity
    }

    /// When the first dropped sample was captured (invalid for a device discontinuity).
    public let presentationTimeStamp: MediaTime
    /// Why it was dropped.
    public let reason: Reason
    /// How many samples this report covers: consecutive drops for one reason are reported
    /// together, once, before the next delivered sample.
    public internal(set) var count: Int
}
