import CaptureKit
import Dispatch

/// Marks the main queue, so that a callback can tell that it runs there. libdispatch may run
/// main-queue blocks on a thread other than the main thread (under `dispatchMain()`), so
/// `Thread.isMainThread` would not say.
let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// One call the manager made to its delegate.
struct DelegateCall: Sendable, CustomStringConvertible {
    /// The delegate method's name.
    let name: String
    /// Whether it ran on the main queue.
    let onMainQueue: Bool
    /// The image it was handed, if any.
    let image: CaptureImage?
    /// The error it was handed, if any.
    let error: (any Error)?

    var description: String { "\(name)\(onMainQueue ? "" : " (off the main queue)")\(error.map { ": \($0)" } ?? "")" }
}

/// A `CQCaptureManagerDelegate` that records every call, in order, and lets a test wait for them.
final class DelegateCalls: CQCaptureManagerDelegate {
    private let stream: AsyncStream<DelegateCall>
    private let continuation: AsyncStream<DelegateCall>.Continuation

    init() {
        _ = mainQueueKey
        (stream, continuation) = AsyncStream.makeStream()
    }

    /// The next `count` calls, or fewer if `timeout` passes first.
    func next(_ count: Int, timeout: Duration = .seconds(90)) async -> [DelegateCall] {
        let stream = self.stream
        return await withTaskGroup(of: [DelegateCall]?.self) { group in
            group.addTask {
                var calls: [DelegateCall] = []
                // Cancelling the wait ends the loop with what has come so far.
                for await call in stream {
                    calls.append(call)
                    if calls.count == count { break }
                }
                return calls
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var calls: [DelegateCall]?
            while calls == nil, let next = await group.next() {
                group.cancelAll()
                calls = next
            }
            return calls ?? []
        }
    }

    private func record(_ name: String, image: CaptureImage? = nil, error: (any Error)? = nil) {
        continuation.yield(DelegateCall(name: name, onMainQueue: DispatchQueue.getSpecific(key: mainQueueKey) == true,
                                        image: image, error: error))
    }

    func mediaCaptureImageFileSuccess() { record(#function) }
    func mediaCaptureImageFailedWithError(_ error: (any Error)?) { record(#function, error: error) }
    func assetLibraryWriteImageSuccessWithImage(_ image: CaptureImage) { record(#function, image: image) }
    func assetLibraryWriteImageFailedWithError(_ error: any Error) { record(#function, error: error) }
    func mediaCaptureMovieFileSuccess() { record(#function) }
    func mediaCaptureMovieFileFailedWithError(_ error: any Error) { record(#function, error: error) }
    func assetLibraryWriteMovieFileSuccessWithCoverImage(_ coverImage: CaptureImage?) { record(#function, image: coverImage) }
    func assetLibraryWriteMovieFileFailedWithError(_ error: any Error) { record(#function, error: error) }
    func deviceConfigurationFailedWithError(_ error: any Error) { record(#function, error: error) }
}
