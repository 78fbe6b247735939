import CaptureKit
import Dispatch
import Foundation

// The seed's CQCaptureManager flow, end to end, on Linux: configure the session step by step,
// take a still image into the library, record a movie into the library, and print what the
// delegate hears. Runs against the default camera — the virtual camera when there is none.
//
//     swift run CaptureManagerDemo [LIBRARY_DIR] [SECONDS]

/// Prints the delegate callbacks as the seed's demo app would show them.
final class DemoDelegate: CaptureManagerDelegate {
    func mediaCaptureImageFileSuccess() { print("delegate: mediaCaptureImageFileSuccess") }
    func mediaCaptureImageFailed(with error: CaptureError) { print("delegate: mediaCaptureImageFailedWithError: \(error)") }
    func assetLibraryWriteImageSuccess(with image: PixelBuffer, asset: MediaAsset) {
        print("delegate: assetLibraryWriteImageSuccessWithImage: \(image.width)x\(image.height) → \(asset.fileURL.path)")
    }
    func assetLibraryWriteImageFailed(with error: CaptureError) { print("delegate: assetLibraryWriteImageFailedWithError: \(error)") }
    func mediaCaptureMovieFileSuccess() { print("delegate: mediaCaptureMovieFileSuccess") }
    func mediaCaptureMovieFileFailed(with error: CaptureError) { print("delegate: mediaCaptureMovieFileFailedWithError: \(error)") }
    func assetLibraryWriteMovieFileSuccess(with coverImage: PixelBuffer, asset: MediaAsset) {
        print("delegate: assetLibraryWriteMovieFileSuccessWithCoverImage: \(coverImage.width)x\(coverImage.height) → \(asset.fileURL.path)")
    }
    func assetLibraryWriteMovieFileFailed(with error: CaptureError) { print("delegate: assetLibraryWriteMovieFileFailedWithError: \(error)") }
    func deviceConfigurationFailed(with error: CaptureError) { print("delegate: deviceConfigurationFailedWithError: \(error)") }
}

let arguments = CommandLine.arguments.dropFirst()
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 3
let delegate = DemoDelegate()
let queue = DispatchQueue(label: "demo.delegate")

do {
    let library = try arguments.first.map { try MediaLibrary(root: URL(fileURLWithPath: $0)) } ?? MediaLibrary.standard()
    let manager = CaptureManager(library: library)
    // The seed calls its delegate on the main queue; this command-line demo keeps its main
    // thread waiting, so it takes the callbacks on a queue of its own.
    manager.setDelegate(delegate, queue: queue)

    // 1. Session and preset (falls back to .high when the camera cannot do it).
    manager.configureSessionPreset(.hd1280x720)
    // 2. Video input: the back camera, else any camera, as the seed's getCameraWithPosition.
    try manager.configureVideoInput(position: .back)
    // 3. Audio input: the default microphone.
    try manager.configureAudioInput()
    // 5. Outputs.
    try manager.configureStillImageOutput()
    try manager.configureMovieFileOutput()
    // 6. Start the session off the caller's thread.
    try await manager.startSession()
    print("session running with \(manager.activeCamera?.localizedName ?? "?")")

    // 7. A still image into the library.
    let photo = try await manager.takePhoto()
    print("photo: \(photo.asset.fileURL.path)")

    // 8. A movie into the library, with its cover image.
    try await manager.startRecordingMovieFile()
    try await Task.sleep(for: .seconds(seconds))
    let movie = try await manager.finishRecordingMovieFile()
    print(String(format: "movie: %@ (%.2f s), cover %dx%d", movie.asset.fileURL.path, movie.asset.duration.seconds,
                 movie.coverImage.width, movie.coverImage.height))

    try await manager.stopSession()
    // Let the delegate queue print what is still queued.
    queue.sync {}
} catch {
    FileHandle.standardError.write(Data("CaptureManagerDemo: \(error)\n".utf8))
    exit(1)
}
