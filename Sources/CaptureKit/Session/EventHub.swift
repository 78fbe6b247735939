import Dispatch
import Foundation
import Synchronization

/// Fans a session's events out to every `events` stream and to the delegate, in order.
final class EventHub: Sendable {
    private struct Listeners {
        weak var delegate: (any CaptureSessionDelegate)?
        var queue: DispatchQueue?
        /// The session the hub belongs to: the delegate's argument and the notifications' object.
        weak var session: CaptureSession?
    }

    private struct WeakSession: Sendable { weak var session: CaptureSession? }

    /// One queue for every session's notifications, so that they are posted in order.
    private static let notifications = DispatchQueue(label: "CaptureKit.session.notifications")

    private let listeners = Mutex(Listeners())
    private let streams = Broadcast<CaptureSession.Event>()

    func makeStream() -> AsyncStream<CaptureSession.Event> { streams.makeStream() }

    /// Names the session whose events these are.
    func attach(to session: CaptureSession) {
        listeners.withLock { $0.session = session }
    }

    func setDelegate(_ delegate: (any CaptureSessionDelegate)?, queue: DispatchQueue?) {
        listeners.withLock {
            $0.delegate = delegate
            $0.queue = queue ?? .main
        }
    }

    /// Sends `event` to every listener. Delegate calls are queued (never waited for), so a busy
    /// delegate cannot stall the session.
    func post(_ event: CaptureSession.Event) {
        let (delegate, queue, session) = listeners.withLock { ($0.delegate, $0.queue, $0.session) }
        streams.yield(event)
        if let (name, userInfo) = CaptureSession.notification(for: event) {
            // Queued in order, so that an observer's block (which runs on the posting thread)
            // cannot stall the session.
            let object = WeakSession(session: session)
            Self.notifications.async {
                NotificationCenter.default.post(name: name, object: object.session, userInfo: userInfo)
            }
        }
        guard let delegate, let queue, let session else { return }
        queue.async {
            switch event {
            case .didStartRunning: delegate.sessionDidStartRunning(session)
            case .didStopRunning: delegate.sessionDidStopRunning(session)
            case .runtimeError(let error): delegate.session(session, didFailWith: error)
            case .wasInterrupted(let reason): delegate.session(session, wasInterruptedBecause: reason)
            case .interruptionEnded: delegate.sessionInterruptionEnded(session)
            case .deviceReachedEnd(let deviceID): delegate.session(session, deviceReachedEnd: deviceID)
            case .resumeFailed(let deviceID, let error): delegate.session(session, didFailToResume: deviceID, error: error)
            }
        }
    }
}
