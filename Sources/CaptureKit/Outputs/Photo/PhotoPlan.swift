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
}
