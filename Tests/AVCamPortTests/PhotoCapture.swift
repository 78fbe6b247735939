import CaptureKit
import Foundation

// AVCam's PhotoCapture, ported with the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md (its
// `@Published` properties become plain ones: Combine is not on Linux).

/// Takes photos through a photo output, one continuation per photo.
final class PhotoCapture: OutputService, @unchecked Sendable {
    /// What the photo output is doing, for the UI.
    private(set) var captureActivity: CaptureActivity = .idle

    /// The output the service adds to the session.
    let output = CapturePhotoOutput()
    private var photoOutput: CapturePhotoOutput { output }

    private(set) var capabilities: CaptureCapabilities = .unknown

    // MARK: - Capture a photo.

    /// Takes one photo; returns when the output has finished with it.
    func capturePhoto(with features: PhotoFeatures) async throws -> Photo {
        try await withCheckedThrowingContinuation { continuation in
            let photoSettings = createPhotoSettings(with: features)

            let delegate = PhotoCaptureDelegate(continuation: continuation)
            monitorProgress(of: delegate)

            photoOutput.capturePhoto(with: photoSettings, delegate: delegate)
        }
    }

    // MARK: - Create a photo settings object.

    private func createPhotoSettings(with features: PhotoFeatures) -> CapturePhotoSettings {
        var photoSettings = CapturePhotoSettings()

        // HEIF when the output can encode it.
        if photoOutput.availablePhotoCodecTypes.contains(.hevc) {
            photoSettings = CapturePhotoSettings(format: [VideoCodecKey: VideoCodecType.hevc])
        }

        // A small preview image beside the photo, in the output's preferred pixel format.
        if let previewPhotoPixelFormatType = photoSettings.availablePreviewPhotoPixelFormatTypes.first {
            photoSettings.previewPhotoFormat = [PixelBufferPixelFormatTypeKey: previewPhotoPixelFormatType]
        }

        photoSettings.maxPhotoDimensions = photoOutput.maxPhotoDimensions

        photoSettings.livePhotoMovieFileURL = features.isLivePhotoEnabled ? URL.movieFileURL : nil

        if let prioritization = CapturePhotoOutput.QualityPrioritization(rawValue: features.qualityPrioritization.rawValue) {
            photoSettings.photoQualityPrioritization = prioritization
        }

        return photoSettings
    }

    /// Follows the delegate's activity until its stream ends.
    private func monitorProgress(of delegate: PhotoCaptureDelegate, isolation: isolated (any Actor)? = #isolation) {
        Task {
            _ = isolation
            var isLivePhoto = false
            for await activity in delegate.activityStream {
                var currentActivity = activity
                // A Live Photo stays one until its movie is done, whatever comes between.
                if activity.isLivePhoto { isLivePhoto = true }
                currentActivity.isLivePhoto = isLivePhoto
                captureActivity = currentActivity
            }
        }
    }

    // MARK: - Update the photo output configuration

    /// Turns on everything the output supports for `device` (called on every camera change).
    func updateConfiguration(for device: CaptureDevice) {
        photoOutput.maxPhotoDimensions = device.activeFormat.supportedMaxPhotoDimensions.last ?? .zero
        photoOutput.isLivePhotoCaptureEnabled = photoOutput.isLivePhotoCaptureSupported
        photoOutput.maxPhotoQualityPrioritization = .quality
        photoOutput.isResponsiveCaptureEnabled = photoOutput.isResponsiveCaptureSupported
        photoOutput.isFastCapturePrioritizationEnabled = photoOutput.isFastCapturePrioritizationSupported
        photoOutput.isAutoDeferredPhotoDeliveryEnabled = photoOutput.isAutoDeferredPhotoDeliverySupported
        updateCapabilities(for: device)
    }

    private func updateCapabilities(for device: CaptureDevice) {
        capabilities = CaptureCapabilities(isLivePhotoCaptureSupported: photoOutput.isLivePhotoCaptureSupported)
    }
}

extension CaptureActivity {
    fileprivate var isLivePhoto: Bool {
        get { if case .photoCapture(_, let isLivePhoto) = self { return isLivePhoto } else { return false } }
        set { if case .photoCapture(let willCapture, _) = self { self = .photoCapture(willCapture: willCapture, isLivePhoto: newValue) } }
    }
}

typealias PhotoContinuation = CheckedContinuation<Photo, Error>

// MARK: - A photo capture delegate to process the captured photo.

/// Hears one photo request and resumes its continuation once, at `didFinishCaptureFor`.
private final class PhotoCaptureDelegate: NSObject, CapturePhotoCaptureDelegate, @unchecked Sendable {
    private let continuation: PhotoContinuation

    private var isProxyPhoto = false

    private var photoData: Data?
    private var livePhotoMovieURL: URL?

    /// What the request is doing, until it is over.
    let activityStream: AsyncStream<CaptureActivity>
    private let activityContinuation: AsyncStream<CaptureActivity>.Continuation

    init(continuation: PhotoContinuation) {
        self.continuation = continuation

        let (activityStream, activityContinuation) = AsyncStream.makeStream(of: CaptureActivity.self)
        self.activityStream = activityStream
        self.activityContinuation = activityContinuation
    }

    func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings) {
        activityContinuation.yield(.photoCapture())
        if resolvedSettings.livePhotoMovieDimensions.width > 0 && resolvedSettings.livePhotoMovieDimensions.height > 0 {
            activityContinuation.yield(.photoCapture(isLivePhoto: true))
        }
    }

    func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {
        activityContinuation.yield(.photoCapture(willCapture: true))
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishRecordingLivePhotoMovieForEventualFileAt outputFileURL: URL, resolvedSettings: CaptureResolvedPhotoSettings) {
        activityContinuation.yield(.photoCapture(isLivePhoto: false))
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingLivePhotoToMovieFileAt outputFileURL: URL, duration: MediaTime, photoDisplayTime: MediaTime, resolvedSettings: CaptureResolvedPhotoSettings, error: Error?) {
        if let error {
            print("Error processing Live Photo companion movie: \(String(describing: error))")
        }
        livePhotoMovieURL = outputFileURL
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishCapturingDeferredPhotoProxy deferredPhotoProxy: CaptureDeferredPhotoProxy?, error: Error?) {
        if let error = error {
            print("Error capturing deferred photo: \(error)")
            return
        }
        photoData = deferredPhotoProxy?.fileDataRepresentation()
        isProxyPhoto = true
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: Error?) {
        if let error = error {
            print("Error capturing photo: \(String(describing: error))")
            return
        }
        photoData = photo.fileDataRepresentation()
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: Error?) {

        defer {
            activityContinuation.finish()
        }

        if let error {
            continuation.resume(throwing: error)
            return
        }

        guard let photoData else {
            continuation.resume(throwing: PhotoCaptureError.noPhotoData)
            return
        }

        let photo = Photo(data: photoData, isProxy: isProxyPhoto, livePhotoMovieURL: livePhotoMovieURL)

        continuation.resume(returning: photo)
    }
}

enum PhotoCaptureError: Error {
    case noPhotoData
}
