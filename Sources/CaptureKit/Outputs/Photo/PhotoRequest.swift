/// One photo request on its way through a ``PhotoCaptureEngine``. Its mutable state is guarded
/// by the engine's lock.
final class PhotoRequest: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do) (the engine's).
    let plan: PhotoPlan?
    let sink: PhotoSink
    let session: CaptureSession?
    let device: CaptureDevice?
    var resolved: CaptureResolvedPhotoSettings
    /// The frame assigned to the request: the first one delivered after it was armed.
    var frame: SampleBuffer?
    /// Why the request failed, once it has.
    var failure: CaptureError?
    /// Set for a format switch: only a frame of this size is the right one.
    var requiredDimensions: PhotoDimensions?
    /// Whether `willCapture`/`didCapture` have gone out.
    var announcedCapture = false
    /// Whether a worker has taken it.
    var claimed = false
    /// The photos (or the failure's stand-in) and errors, once served; reported when every
    /// request before it has been.
    var outcome: [PhotoOutcome]?

    /// Whether serving it switches the camera's format (a still larger than the stream).
    var switchesFormat: Bool { plan?.stillFormat != nil }

    init(plan: PhotoPlan, resolved: CaptureResolvedPhotoSettings, sink: PhotoSink, session: CaptureSession, device: CaptureDevice) {
        self.plan = plan
        self.resolved = resolved
        self.sink = sink
        self.session = session
        self.device = device
    }

    /// A request refused before it could be resolved; it still reports, in order.
    init(refused error: CaptureError, settings: CapturePhotoSettings, sink: PhotoSink) {
        plan = nil
        resolved = CaptureResolvedPhotoSettings(unresolved: settings)
        self.sink = sink
        session = nil
        device = nil
        failure = error
    }
}
