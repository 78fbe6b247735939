/// Hears the outcome of a ``CaptureManager``'s photos and movies — the seed's
/// `CQCaptureManagerDelegate`, method for method, called on the manager's delegate queue (the
/// main queue by default, as in the seed). Every method has an empty default.
///
/// For a photo: `mediaCaptureImageFileSuccess`, then `assetLibraryWriteImageSuccess` (or the
/// matching `…Failed` call). For a movie: `mediaCaptureMovieFileSuccess`, then
/// `assetLibraryWriteMovieFileSuccess` with a cover image 100 pixels wide.
///
/// ```swift
/// final class Album: CaptureManagerDelegate {
///     func assetLibraryWriteImageSuccess(with image: PixelBuffer, asset: MediaAsset) {
///         print("photo \(asset.fileURL.path), \(image.width)×\(image.height)")
///     }
///     func assetLibraryWriteMovieFileFailed(with error: CaptureError) { print(error.message) }
/// }
/// let manager = CaptureManager(library: try .standard())
/// manager.setDelegate(Album())
/// manager.captureStillImage()
/// ```
public protocol CaptureManagerDelegate: AnyObject, Sendable {
    /// The photo was taken (`mediaCaptureImageFileSuccess`).
    func mediaCaptureImageFileSuccess()
    /// The photo could not be taken (`mediaCaptureImageFailedWithError:`).
    func mediaCaptureImageFailed(with error: CaptureError)
    /// The photo is in the library (`assetLibraryWriteImageSuccessWithImage:`).
    func assetLibraryWriteImageSuccess(with image: PixelBuffer, asset: MediaAsset)
    /// The photo could not be saved (`assetLibraryWriteImageFailedWithError:`).
    func assetLibraryWriteImageFailed(with error: CaptureError)
    /// The movie was recorded (`mediaCaptureMovieFileSuccess`).
    func mediaCaptureMovieFileSuccess()
    /// The movie could not be recorded (`mediaCaptureMovieFileFailedWithError:`).
    func mediaCaptureMovieFileFailed(with error: CaptureError)
    /// The movie is in the library; `coverImage` is its first frame, 100 pixels wide
    /// (`assetLibraryWriteMovieFileSuccessWithCoverImage:`).
    func assetLibraryWriteMovieFileSuccess(with coverImage: PixelBuffer, asset: MediaAsset)
    /// The movie could not be saved (`assetLibraryWriteMovieFileFailedWithError:`).
    func assetLibraryWriteMovieFileFailed(with error: CaptureError)
    /// A device could not be configured (`deviceConfigurationFailedWithError:`).
    func deviceConfigurationFailed(with error: CaptureError)
}

extension CaptureManagerDelegate {
    public func mediaCaptureImageFileSuccess() {}
    public func mediaCaptureImageFailed(with error: CaptureError) {}
    public func assetLibraryWriteImageSuccess(with image: PixelBuffer, asset: MediaAsset) {}
    public func assetLibraryWriteImageFailed(with error: CaptureError) {}
    public func mediaCaptureMovieFileSuccess() {}
    public func mediaCaptureMovieFileFailed(with error: CaptureError) {}
    public func assetLibraryWriteMovieFileSuccess(with coverImage: PixelBuffer, asset: MediaAsset) {}
    public func assetLibraryWriteMovieFileFailed(with error: CaptureError) {}
    public func deviceConfigurationFailed(with error: CaptureError) {}
}
