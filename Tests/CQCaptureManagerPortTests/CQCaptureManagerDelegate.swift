import CaptureKit

// The article's delegate protocol. Objective-C's `@optional` methods become requirements with
// empty defaults; `respondsToSelector:` checks become plain calls.

/// What `CQCaptureManager` reports, always on the main queue.
protocol CQCaptureManagerDelegate: AnyObject, Sendable {
    /// A still was taken (before it is written to the library).
    func mediaCaptureImageFileSuccess()
    /// Taking a still failed.
    func mediaCaptureImageFailedWithError(_ error: (any Error)?)
    /// The still is in the library.
    func assetLibraryWriteImageSuccessWithImage(_ image: CaptureImage)
    /// Writing the still to the library failed.
    func assetLibraryWriteImageFailedWithError(_ error: any Error)
    /// The movie file is finished (before it is written to the library).
    func mediaCaptureMovieFileSuccess()
    /// Recording the movie failed.
    func mediaCaptureMovieFileFailedWithError(_ error: any Error)
    /// The movie is in the library; `coverImage` is its first frame, 100 px wide.
    func assetLibraryWriteMovieFileSuccessWithCoverImage(_ coverImage: CaptureImage?)
    /// Writing the movie to the library failed.
    func assetLibraryWriteMovieFileFailedWithError(_ error: any Error)
    /// Configuring the camera failed.
    func deviceConfigurationFailedWithError(_ error: any Error)
}

extension CQCaptureManagerDelegate {
    func mediaCaptureImageFileSuccess() {}
    func mediaCaptureImageFailedWithError(_ error: (any Error)?) {}
    func assetLibraryWriteImageSuccessWithImage(_ image: CaptureImage) {}
    func assetLibraryWriteImageFailedWithError(_ error: any Error) {}
    func mediaCaptureMovieFileSuccess() {}
    func mediaCaptureMovieFileFailedWithError(_ error: any Error) {}
    func assetLibraryWriteMovieFileSuccessWithCoverImage(_ coverImage: CaptureImage?) {}
    func assetLibraryWriteMovieFileFailedWithError(_ error: any Error) {}
    func deviceConfigurationFailedWithError(_ error: any Error) {}
}
