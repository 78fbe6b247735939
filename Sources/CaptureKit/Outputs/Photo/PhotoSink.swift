import Dispatch

/// Where one photo request reports: a delegate on its queue (`capturePhoto(with:delegate:)`),
/// or a closure that gets the result once (the async API and the legacy still-image output).
/// Each method is called exactly once per request, in declaration order.
enum PhotoSink: Sendable {
    case delegate(any CapturePhotoCaptureDelegate, DispatchQueue, CapturePhotoOutput)
    /// Every photo of the request, or the first error.
    case completion(@Sendable (Result<[CapturePhoto], CaptureError>) -> Void)

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

    /// `didFinishProcessingPhoto` for each photo of the request (the raw one first), then
    /// `didFinishCapture` with the first error.
    func finished(_ outcomes: [PhotoOutcome]) {
        guard let first = outcomes.first else { return }
        let error = outcomes.lazy.compactMap(\.error).first
        switch self {
        case let .delegate(delegate, queue, output):
            queue.async {
                for outcome in outcomes { delegate.photoOutput(output, didFinishProcessingPhoto: outcome.photo, error: outcome.error) }
                delegate.photoOutput(output, didFinishCaptureFor: first.photo.resolvedSettings, error: error)
            }
        case let .completion(body):
            body(error.map { .failure($0) } ?? .success(outcomes.map(\.photo)))
        }
    }
}

/// One photo of a request, or the stand-in for one that could not be made and why.
struct PhotoOutcome: Sendable {
    var photo: CapturePhoto
    var error: CaptureError?
}
