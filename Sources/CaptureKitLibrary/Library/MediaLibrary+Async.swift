import CaptureKitCore
import CaptureKitMedia
import Dispatch
import Foundation

extension MediaLibrary {
    /// ``saveImage(_:fileExtension:creationDate:)-aq84`` off the caller's thread.
    public func saveImage(_ data: Data, fileExtension: String? = nil, creationDate: Date? = nil) async throws(CaptureError) -> MediaAsset {
        try await offload { () throws(CaptureError) in try self.saveImage(data, fileExtension: fileExtension, creationDate: creationDate) }
    }

    /// ``saveImage(_:quality:creationDate:)-1nl5i`` off the caller's thread.
    public func saveImage(_ buffer: PixelBuffer, quality: Int = 90, creationDate: Date? = nil) async throws(CaptureError) -> MediaAsset {
        try await offload { () throws(CaptureError) in try self.saveImage(buffer, quality: quality, creationDate: creationDate) }
    }

    /// ``saveVideo(at:move:)-5et0o`` off the caller's thread.
    public func saveVideo(at url: URL, move: Bool = false) async throws(CaptureError) -> MediaAsset {
        try await offload { () throws(CaptureError) in try self.saveVideo(at: url, move: move) }
    }

    /// ``delete(_:)`` off the caller's thread.
    public func delete(_ asset: MediaAsset) async throws(CaptureError) {
        try await offload { () throws(CaptureError) in try self.delete(asset) }
    }

    /// ``saveImage(_:fileExtension:creationDate:)-aq84`` on the library's own queue; `completion`
    /// gets the asset or the error on `queue` (the main queue by default, as UIKit's
    /// `UIImageWriteToSavedPhotosAlbum` — a command-line program that never runs its main
    /// queue should pass another).
    public func saveImage(_ data: Data, fileExtension: String? = nil, creationDate: Date? = nil, queue: DispatchQueue = .main,
                          completion: @escaping @Sendable (Result<MediaAsset, CaptureError>) -> Void) {
        dispatch(to: queue, completion) { () throws(CaptureError) in
            try self.saveImage(data, fileExtension: fileExtension, creationDate: creationDate)
        }
    }

    /// ``saveImage(_:quality:creationDate:)-1nl5i`` on the library's own queue; `completion` gets
    /// the asset or the error on `queue` (the main queue by default).
    public func saveImage(_ buffer: PixelBuffer, quality: Int = 90, creationDate: Date? = nil, queue: DispatchQueue = .main,
                          completion: @escaping @Sendable (Result<MediaAsset, CaptureError>) -> Void) {
        dispatch(to: queue, completion) { () throws(CaptureError) in
            try self.saveImage(buffer, quality: quality, creationDate: creationDate)
        }
    }

    /// ``saveVideo(at:move:)-5et0o`` on the library's own queue (`UISaveVideoAtPathToSavedPhotosAlbum`);
    /// `completion` gets the asset or the error on `queue` (the main queue by default).
    public func saveVideo(at url: URL, move: Bool = false, queue: DispatchQueue = .main,
                          completion: @escaping @Sendable (Result<MediaAsset, CaptureError>) -> Void) {
        dispatch(to: queue, completion) { () throws(CaptureError) in try self.saveVideo(at: url, move: move) }
    }

    /// Runs `work` on the work queue and resumes with its result.
    private func offload<T: Sendable>(_ work: @escaping @Sendable () throws(CaptureError) -> T) async throws(CaptureError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, CaptureError>, Never>) in
            workQueue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }

    /// Runs `work` on the work queue and hands its result to `completion` on `queue`.
    private func dispatch(to queue: DispatchQueue, _ completion: @escaping @Sendable (Result<MediaAsset, CaptureError>) -> Void,
                          _ work: @escaping @Sendable () throws(CaptureError) -> MediaAsset) {
        workQueue.async {
            let result = Result(catching: work)
            queue.async { completion(result) }
        }
    }
}
