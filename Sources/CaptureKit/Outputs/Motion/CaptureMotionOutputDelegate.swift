/// Receives a ``CaptureMotionOutput``'s events on the queue given to
/// ``CaptureMotionOutput/setMotionDelegate(_:queue:)``.
public protocol CaptureMotionOutputDelegate: AnyObject, Sendable {
    /// Motion began, went on or ended in the video of `connection`.
    func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection)
}
