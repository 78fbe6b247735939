/// Follows one photo request (`AVCapturePhotoCaptureDelegate`). For every request the output
/// calls, exactly once each and in this order, also when the request fails:
/// `willBeginCaptureFor`, `willCapturePhotoFor`, `didCapturePhotoFor`, `didFinishProcessingPhoto`
/// and `didFinishCaptureFor`. Every method has an empty default.
///
/// The output keeps the delegate until the last call has been made, and calls it on the queue
/// given with the request (a serial queue of the output's own otherwise).
public protocol CapturePhotoCaptureDelegate: AnyObject, Sendable {
    /// The request was accepted (or refused: the error follows in the last two calls).
    func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The frame for the photo is being taken: play a shutter sound here.
    func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The frame has been taken; encoding follows.
    func photoOutput(_ output: CapturePhotoOutput, didCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The photo is ready, or `error` says why there is none (the photo then has no file data).
    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: CaptureError?)
    /// The request is over; nothing more will be called for it.
    func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: CaptureError?)
}

extension CapturePhotoCaptureDelegate {
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: CaptureError?) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: CaptureError?) {}
}
