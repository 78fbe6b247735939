import Dispatch

/// Where one photo request reports: a delegate on its queue (`capturePhoto(with:delegate:)`),
/// or a closure that gets the result once (the async API and the legacy still-image output).
/// Each method is called exactly once per request, in declaration order.
enum PhotoSink: Sendable {
    case delegate(any CapturePhotoCaptureDelegate, DispatchQueue, CapturePhotoOutput)
    case completion(@Sendable (Result<CapturePhoto, CaptureError>) -> Void)

    func willBegin(_ settings: CaptureResolvedPhotoSettings) {
        guard case let .delegate(delegate, queue, output) = self else { return }
        queue.async { delegate.photoOutput(output, willBeginCaptureFor: settings) }
    }

    /// `willCapturePhoto` then `didCapturePhoto`: the frame is taken the moment it is assigned,
    /// so both are due together.
    func captured(_ settings: CaptureResolvedPhotoSettings) {
        guard case let .delegate(delegate, queue, output) = self else { return }
        queue.async {
            delegate.photoOutput(output, willCapturePhotoFor: settings)
            delegate.photoOutput(output, didCapturePhotoFor: settings)
        }
    }

    /// `didFinishProcessingPhoto` then `didFinishCapture`.
    func finished(_ photo: CapturePhoto, error: CaptureError?) {
        switch self {
        case let .delegate(delegate, queue, output):
            queue.async {
                delegate.photoOutput(output, didFinishProcessingPhoto: photo, error: error)
                delegate.photoOutput(output, didFinishCaptureFor: photo.resolvedSettings, error: error)
            }
        case let .completion(body):
            body(error.map { .failure($0) } ?? .success(photo))
        }
    }
}
