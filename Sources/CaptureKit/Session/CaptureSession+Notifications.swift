import Foundation

/// The ``CaptureError`` of a ``CaptureSession/runtimeErrorNotification`` (`AVCaptureSessionErrorKey`).
public let CaptureSessionErrorKey = "AVCaptureSessionErrorKey"

/// The ``CaptureSession/InterruptionReason`` of a ``CaptureSession/wasInterruptedNotification``
/// (`AVCaptureSessionInterruptionReasonKey`).
public let CaptureSessionInterruptionReasonKey = "AVCaptureSessionInterruptionReasonKey"

// The session's events as NotificationCenter notifications, the way AVFoundation reports them
// and ported code observes them. ``CaptureSession/events`` and the delegate carry the same
// events; all three see them in the same order.
extension CaptureSession {
    /// Capture began (`didStartRunningNotification`); the object is the session.
    public static let didStartRunningNotification = Notification.Name("CaptureSessionDidStartRunning")
    /// Capture ended (`didStopRunningNotification`).
    public static let didStopRunningNotification = Notification.Name("CaptureSessionDidStopRunning")
    /// Something failed while running (`runtimeErrorNotification`); the error is under
    /// ``CaptureSessionErrorKey``.
    public static let runtimeErrorNotification = Notification.Name("CaptureSessionRuntimeError")
    /// A device went away (`wasInterruptedNotification`); the reason is under
    /// ``CaptureSessionInterruptionReasonKey``.
    public static let wasInterruptedNotification = Notification.Name("CaptureSessionWasInterrupted")
    /// Capture goes on after an interruption (`interruptionEndedNotification`).
    public static let interruptionEndedNotification = Notification.Name("CaptureSessionInterruptionEnded")

    /// The notification name and user info an event is posted with; nil for the events
    /// AVFoundation has no notification for (they reach ``events`` and the delegate only).
    static func notification(for event: Event) -> (Notification.Name, [String: any Sendable])? {
        switch event {
        case .didStartRunning: return (didStartRunningNotification, [:])
        case .didStopRunning: return (didStopRunningNotification, [:])
        case .runtimeError(let error): return (runtimeErrorNotification, [CaptureSessionErrorKey: error])
        case .wasInterrupted(let reason): return (wasInterruptedNotification, [CaptureSessionInterruptionReasonKey: reason])
        case .interruptionEnded: return (interruptionEndedNotification, [:])
        case .deviceReachedEnd, .resumeFailed: return nil
        }
    }
}
