import Dispatch

extension CaptureSession {
    /// Where a session is in its life. Transitions:
    ///
    /// ```
    /// idle ──start──▶ starting ──▶ running ──stop──▶ stopping ──▶ idle
    ///                    │            │  ▲
    ///                    └─(fails)─▶ idle  device lost │ │ device back
    ///                                 ▼  │
    ///                              interrupted ──stop──▶ stopping
    /// ```
    /// Calls that do not fit the current state throw `CaptureError` with code `.invalidState`.
    public enum State: String, Sendable, Hashable {
        /// Not capturing. Configuration is free; `startRunning()` is allowed.
        case idle
        /// Opening devices.
        case starting
        /// Capturing.
        case running
        /// Running, but a device has gone away; capture resumes when it returns (unless
        /// `resumesWhenDevicesReturn` is off, or the returned device cannot take its format).
        case interrupted
        /// Closing devices.
        case stopping
    }

    /// Why a session was interrupted (`AVCaptureSession.InterruptionReason`).
    public enum InterruptionReason: Sendable, Hashable {
        /// The camera with this unique ID went away.
        case videoDeviceNotAvailable(deviceID: String)
        /// The microphone with this unique ID went away.
        case audioDeviceNotAvailable(deviceID: String)
    }

    /// What happens to a session, in order (the notifications of `AVCaptureSession`).
    ///
    /// ```swift
    /// for await event in session.events {
    ///     switch event {
    ///     case .wasInterrupted(let reason): print("waiting for the device: \(reason)")
    ///     case .interruptionEnded: print("capturing again")
    ///     case .runtimeError(let error): print(error.message)
    ///     default: break
    ///     }
    /// }
    /// ```
    public enum Event: Sendable {
        /// Capture began.
        case didStartRunning
        /// Capture ended.
        case didStopRunning
        /// Something failed while running; the session stops when the failure is fatal.
        case runtimeError(CaptureError)
        /// A device went away; the session waits for it.
        case wasInterrupted(InterruptionReason)
        /// Every lost device is back and capture goes on.
        case interruptionEnded
        /// A device with a natural end (a file-backed device that does not loop) delivered its
        /// last sample. The session keeps running; stop it when you are done.
        case deviceReachedEnd(deviceID: String)
        /// A lost device came back (the same unique ID) but cannot capture as it did before
        /// (it no longer offers the format it had: another camera under the same name, or a
        /// driver that returned with fewer formats). The session stays interrupted rather than
        /// guess; `error` says why (`.unsupportedFormat`).
        case resumeFailed(deviceID: String, error: CaptureError)
    }
}

/// Receives a session's events on the queue given to `CaptureSession.setDelegate(_:queue:)`.
/// Every method has an empty default.
///
/// ```swift
/// final class Watcher: CaptureSessionDelegate {
///     func session(_ session: CaptureSession, wasInterruptedBecause reason: CaptureSession.InterruptionReason) {
///         print("camera lost: \(reason)")
///     }
///     func sessionInterruptionEnded(_ session: CaptureSession) { print("camera back") }
/// }
/// session.setDelegate(Watcher(), queue: DispatchQueue(label: "session events"))
/// ```
public protocol CaptureSessionDelegate: AnyObject, Sendable {
    /// Capture began.
    func sessionDidStartRunning(_ session: CaptureSession)
    /// Capture ended.
    func sessionDidStopRunning(_ session: CaptureSession)
    /// Something failed while running.
    func session(_ session: CaptureSession, didFailWith error: CaptureError)
    /// A device went away.
    func session(_ session: CaptureSession, wasInterruptedBecause reason: CaptureSession.InterruptionReason)
    /// Every lost device is back.
    func sessionInterruptionEnded(_ session: CaptureSession)
    /// A file-backed device played its whole file.
    func session(_ session: CaptureSession, deviceReachedEnd deviceID: String)
    /// A lost device returned but cannot capture as before; the session stays interrupted.
    func session(_ session: CaptureSession, didFailToResume deviceID: String, error: CaptureError)
}

extension CaptureSessionDelegate {
    public func sessionDidStartRunning(_ session: CaptureSession) {}
    public func sessionDidStopRunning(_ session: CaptureSession) {}
    public func session(_ session: CaptureSession, didFailWith error: CaptureError) {}
    public func session(_ session: CaptureSession, wasInterruptedBecause reason: CaptureSession.InterruptionReason) {}
    public func sessionInterruptionEnded(_ session: CaptureSession) {}
    public func session(_ session: CaptureSession, deviceReachedEnd deviceID: String) {}
    public func session(_ session: CaptureSession, didFailToResume deviceID: String, error: CaptureError) {}
}
