import Foundation

/// Notifications as async sequences, as Darwin's Foundation has them.
extension NotificationCenter {
    /// The notifications named `name` (from `object` only, when given) as an async sequence,
    /// from now until the task iterating it is cancelled — what Darwin's Foundation offers as
    /// `notifications(named:object:)` and swift-corelibs-foundation does not. Its elements are
    /// ``PostedNotification``s rather than `Notification`s, which are not `Sendable` on Linux;
    /// they have the same `name`, `object` and `userInfo`.
    ///
    /// ```swift
    /// let errors = NotificationCenter.default.notifications(named: CaptureSession.runtimeErrorNotification)
    ///     .compactMap { $0.userInfo?[CaptureSessionErrorKey] as? CaptureError }
    /// ```
    public func notifications(named name: Notification.Name, object: AnyObject? = nil) -> AsyncStream<PostedNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: PostedNotification.self)
        let observer = ObserverToken(addObserver(forName: name, object: object, queue: nil) { continuation.yield(PostedNotification($0)) })
        continuation.onTermination = { [weak self] _ in self?.removeObserver(observer.token) }
        return stream
    }
}

/// A notification as ``FoundationEssentials/NotificationCenter/notifications(named:object:)`` delivers it.
/// CaptureKit posts only `Sendable` objects and user-info values; another poster's are what it
/// put there.
// Unchecked Sendable: a read-only snapshot of a posted notification.
public struct PostedNotification: @unchecked Sendable {
    /// The notification's name.
    public let name: Notification.Name
    /// The object that posted it.
    public let object: Any?
    /// Its user info.
    public let userInfo: [AnyHashable: Any]?

    init(_ notification: Notification) {
        name = notification.name
        object = notification.object
        userInfo = notification.userInfo
    }
}

/// An observer registration, handed to the termination handler that removes it.
// Unchecked Sendable: the token is only passed back to removeObserver(_:), which is thread-safe.
private struct ObserverToken: @unchecked Sendable {
    let token: any NSObjectProtocol
    init(_ token: any NSObjectProtocol) { self.token = token }
}
