import CaptureKit
import Dispatch
import Synchronization

/// Camera access on the portal route, asked once before a command runs, as an application asks
/// before it opens a camera: the desktop's prompt the first time, its stored answer after that.
enum PortalAccess {
    /// Waits for ``CaptureDevice/requestCameraAccess()``; throws what it threw (`.notAuthorized`
    /// when refused, `.connectionFailed` when no portal answers).
    static func request() throws(CaptureError) {
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
    }
}
