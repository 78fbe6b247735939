/// How a request will be served, decided when it is made.
struct PhotoPlan: Sendable {
    var settings: CapturePhotoSettings
    /// The largest photo: the frame is scaled down to fit inside it.
    var box: PhotoDimensions
    /// The larger device format to switch to for the shot, if any.
    var stillFormat: CaptureDevice.Format?
    /// The connection's rotation and mirroring at request time.
    var orientation: EXIFOrientation
    var make: String
    var model: String
    var hasFlash: Bool
    /// How long to wait for the frame before failing.
    var frameTimeoutSeconds: Double
    /// How long ago the newest frame may have been delivered for the photo to take it
    /// (zero shutter lag), and the size it must have; nil when the photo needs a frame after
    /// the request (a switch of format, a flash, ``CapturePhotoSettings/waitsForNextFrame``).
    var newestFrame: (maximumAge: MediaTime, size: PhotoDimensions)?
}
