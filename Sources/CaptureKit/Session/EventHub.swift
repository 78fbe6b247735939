import Dispatch
import Synchronization

/// Fans a session's events out to every `events` stream and to the delegate, in order.
final class EventHub: Sendable {
    private struct Listeners {
        var streams: [Int: AsyncStream<CaptureSession.Event>.Continuation] = [:]
        var nextID = 0
        weak var delegate: (any CaptureSessionDelegate)?
        var queue: DispatchQueue?
        weak var session: CaptureSession?
    }

    private let listeners = Mutex(Listeners())

    func makeStream() -> AsyncStream<CaptureSession.Event> {
        let (stream, continuation) = AsyncStream<CaptureSession.Event>.makeStream()
        let id = listeners.withLock { listeners -> Int in
            listeners.nextID += 1
            listeners.streams[listeners.nextID] = continuation
            return listeners.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func setDelegate(_ delegate: (any CaptureSessionDelegate)?, queue: DispatchQueue?, session: CaptureSession) {
        listeners.withLock {
            $0.delegate = delegate
            $0.queue = queue ?? .main
            $0.session = session
        }
    }

    /// Sends `event` to every listener. Delegate calls are queued (never waited for), so a busy
    /// delegate cannot stall the session.
    func post(_ event: CaptureSession.Event) {
        let (streams, delegate, queue, session) = listeners.withLock {
            (Array($0.streams.values), $0.delegate, $0.queue, $0.session)
        }
        for stream in streams { stream.yield(event) }
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

    deinit {
        listeners.withLock { $0.streams.values.forEach { $0.finish() } }
    }
}
