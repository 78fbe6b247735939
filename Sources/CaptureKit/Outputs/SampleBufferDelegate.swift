/// Receives samples from a ``CaptureVideoDataOutput`` or ``CaptureAudioDataOutput`` on the queue
/// given to `setSampleBufferDelegate(_:queue:)`. The output holds the delegate weakly.
///
/// ```swift
/// final class Counter: SampleBufferDelegate {
///     func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
///         print(sampleBuffer.presentationTimeStamp)
///     }
/// }
/// ```
public protocol SampleBufferDelegate: AnyObject, Sendable {
    /// A new sample.
    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection)
    /// A sample that was not delivered, and why. Default: nothing.
    func captureOutput(_ output: CaptureOutput, didDrop droppedFrame: DroppedFrame, from connection: CaptureConnection)
}

extension SampleBufferDelegate {
    public func captureOutput(_ output: CaptureOutput, didDrop droppedFrame: DroppedFrame, from connection: CaptureConnection) {}
}

/// AVFoundation's name for the video delegate.
public typealias CaptureVideoDataOutputSampleBufferDelegate = SampleBufferDelegate
/// AVFoundation's name for the audio delegate.
public typealias CaptureAudioDataOutputSampleBufferDelegate = SampleBufferDelegate
