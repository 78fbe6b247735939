import CaptureKit
import Dispatch
import Synchronization

/// Camera access on the portal route, asked before a command looks for a camera, as an
/// application asks before it opens one: the desktop's prompt the first time, its stored answer
/// after that. Commands that use no camera never ask.
enum PortalAccess {
    private static let granted = Mutex(false)

    /// On the portal route, waits for ``CaptureDevice/requestCameraAccess()`` (once per run);
    /// throws what it threw (`.notAuthorized` when refused, `.connectionFailed` when no portal
    /// answers). Nothing on the direct route.
    static func requestIfNeeded() throws(CaptureError) {
        guard CaptureDevice.cameraRoute == .portal, !granted.withLock({ $0 }) else { return }
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<CaptureError?>(nil)
        Task.detached {
            do throws(CaptureError) {
                try await CaptureDevice.requestCameraAccess()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        granted.withLock { $0 = true }
    }
}
