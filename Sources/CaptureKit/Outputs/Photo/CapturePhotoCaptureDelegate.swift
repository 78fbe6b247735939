import Foundation

/// Follows one photo request (`AVCapturePhotoCaptureDelegate`). For every request the output
/// calls, exactly once each and in this order, also when the request fails:
/// `willBeginCaptureFor`, `willCapturePhotoFor`, `didCapturePhotoFor`, `didFinishProcessingPhoto`
/// and `didFinishCaptureFor` — `didFinishProcessingPhoto` once per photo the request makes
/// (``CaptureResolvedPhotoSettings/expectedPhotoCount``: a raw photo with a processed one is
/// two, the raw one first; a request that fails before its frame reports one, with the error).
///
/// The three progress calls have empty defaults. The two that finish a request have none: a
/// delegate whose `didFinish…` method is misspelled would otherwise compile, never be called,
/// and leave whatever waits for the photo waiting for ever. Their `error` is `(any Error)?`, as
/// on iOS, so a delegate written as Apple's samples write it is the requirement itself; its
/// dynamic type is always ``CaptureError`` (`error as? CaptureError`).
///
/// The output keeps the delegate until the last call has been made, and calls it on the queue
/// given with the request (a serial queue of the output's own otherwise).
///
/// ```swift
/// final class Shutter: CapturePhotoCaptureDelegate {
///     func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?) {
///         if let data = photo.fileDataRepresentation() { print("\(data.count) bytes of JPEG") }
///     }
///     func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings,
///                      error: (any Error)?) {}
/// }
/// photoOutput.capturePhoto(with: CapturePhotoSettings(), delegate: Shutter())
/// ```
public protocol CapturePhotoCaptureDelegate: AnyObject, Sendable {
    /// The request was accepted (or refused: the error follows in the last two calls).
    func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The frame for the photo is being taken: play a shutter sound here.
    func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The frame has been taken; encoding follows.
    func photoOutput(_ output: CapturePhotoOutput, didCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings)
    /// The photo is ready, or `error` says why there is none (the photo then has no file data).
    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?)
    /// The request is over; nothing more will be called for it.
    func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?)
    /// A Live Photo's movie is complete (`didFinishRecordingLivePhotoMovieForEventualFileAt`).
    /// Never called: no Linux camera takes Live Photos.
    func photoOutput(_ output: CapturePhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt outputFileURL: URL,
                     resolvedSettings: CaptureResolvedPhotoSettings)
    /// A Live Photo's movie is written (`didFinishProcessingLivePhotoToMovieFileAt`). Never called.
    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingLivePhotoToMovieFileAt outputFileURL: URL, duration: MediaTime,
                     photoDisplayTime: MediaTime, resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?)
    /// A proxy photo is ready (`didFinishCapturingDeferredPhotoProxy`). Never called: every
    /// photo arrives final, at `didFinishProcessingPhoto`.
    func photoOutput(_ output: CapturePhotoOutput, didFinishCapturingDeferredPhotoProxy deferredPhotoProxy: CaptureDeferredPhotoProxy?,
                     error: (any Error)?)
}

extension CapturePhotoCaptureDelegate {
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt outputFileURL: URL,
                            resolvedSettings: CaptureResolvedPhotoSettings) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingLivePhotoToMovieFileAt outputFileURL: URL, duration: MediaTime,
                            photoDisplayTime: MediaTime, resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?) {}
    /// Does nothing.
    public func photoOutput(_ output: CapturePhotoOutput, didFinishCapturingDeferredPhotoProxy deferredPhotoProxy: CaptureDeferredPhotoProxy?,
                            error: (any Error)?) {}
}
