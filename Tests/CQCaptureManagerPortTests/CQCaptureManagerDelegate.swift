import CaptureKit

// The article's delegate protocol. Objective-C's `@optional` methods become requirements with
// empty defaults; `respondsToSelector:` checks become plain calls.

/// What `CQCaptureManager` reports, always on the main queue.
protocol CQCaptureManagerDelegate: AnyObject, Sendable {
    /// A still was taken (before it is written to the library).
    func mediaCaptureImageFileSuccess()
    /// Taking a still failed.
    func mediaCaptureImageFailedWithError(_ error: CaptureError?)
    /// The still is in the library.
    func assetLibraryWriteImageSuccessWithImage(_ image: CaptureImage)
    /// Writing the still to the library failed.
    func assetLibraryWriteImageFailedWithError(_ error: CaptureError)
    /// The movie file is finished (before it is written to the library).
    func mediaCaptureMovieFileSuccess()
    /// Recording the movie failed.
    func mediaCaptureMovieFileFailedWithError(_ error: CaptureError)
    /// The movie is in the library; `coverImage` is its first frame, 100 px wide.
    func assetLibraryWriteMovieFileSuccessWithCoverImage(_ coverImage: CaptureImage?)
    /// Writing the movie to the library failed.
    func assetLibraryWriteMovieFileFailedWithError(_ error: CaptureError)
    /// Configuring the camera failed.
    func deviceConfigurationFailedWithError(_ error: CaptureError)
}

extension CQCaptureManagerDelegate {
    func mediaCaptureImageFileSuccess() {}
    func mediaCaptureImageFailedWithError(_ error: CaptureError?) {}
    func assetLibraryWriteImageSuccessWithImage(_ image: CaptureImage) {}
    func assetLibraryWriteImageFailedWithError(_ error: CaptureError) {}
    func mediaCaptureMovieFileSuccess() {}
    func mediaCaptureMovieFileFailedWithError(_ error: CaptureError) {}
    func assetLibraryWriteMovieFileSuccessWithCoverImage(_ coverImage: CaptureImage?) {}
    func assetLibraryWriteMovieFileFailedWithError(_ error: CaptureError) {}
    func deviceConfigurationFailedWithError(_ error: CaptureError) {}
}
