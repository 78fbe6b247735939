import Dispatch
import Foundation
import Testing
@testable import CaptureKit

/// Records a capture manager's delegate calls by name.
private final class ManagerCalls: CaptureManagerDelegate {
    let names = Recorder<String>()
    let coverWidths = Recorder<Int>()

    func mediaCaptureImageFileSuccess() { names.append("mediaCaptureImageFileSuccess") }
    func mediaCaptureImageFailed(with error: CaptureError) { names.append("mediaCaptureImageFailed") }
    func assetLibraryWriteImageSuccess(with image: PixelBuffer, asset: MediaAsset) { names.append("assetLibraryWriteImageSuccess") }
    func assetLibraryWriteImageFailed(with error: CaptureError) { names.append("assetLibraryWriteImageFailed") }
    func mediaCaptureMovieFileSuccess() { names.append("mediaCaptureMovieFileSuccess") }
    func mediaCaptureMovieFileFailed(with error: CaptureError) { names.append("mediaCaptureMovieFileFailed") }
    func assetLibraryWriteMovieFileSuccess(with coverImage: PixelBuffer, asset: MediaAsset) {
        coverWidths.append(coverImage.width)
        names.append("assetLibraryWriteMovieFileSuccess")
    }
    func assetLibraryWriteMovieFileFailed(with error: CaptureError) { names.append("assetLibraryWriteMovieFileFailed") }
    func deviceConfigurationFailed(with error: CaptureError) { names.append("deviceConfigurationFailed") }
}

/// A manager with a library of its own and a delegate recording its calls.
private func makeManager() throws -> (CaptureManager, ManagerCalls, URL) {
    let root = FileFixtures.directory.appendingPathComponent("manager-\(UUID().uuidString.prefix(6))")
    let manager = CaptureManager(library: try MediaLibrary(root: root))
    let calls = ManagerCalls()
    manager.setDelegate(calls, queue: DispatchQueue(label: "tests.manager"))
    return (manager, calls, root)
}

extension RealTimeCaptureTests {
    /// The seed's CQCaptureManager flow through `CaptureManager`: the delegate hears exactly the
    /// seed's callbacks, in order, and the library holds the results.
    @Suite(.serialized)
    struct CaptureManagerTests {
        @Test func aPhotoGoesToTheLibraryWithTheSeedsCallbacks() async throws {
            let (manager, calls, _) = try makeManager()
            manager.configureSessionPreset(.vga640x480)
            manager.captureStillImage()
            #expect(await calls.names.wait(forCount: 2, timeout: .seconds(30)))
            #expect(calls.names.items == ["mediaCaptureImageFileSuccess", "assetLibraryWriteImageSuccess"])
            let photos = try manager.library.assets(kind: .photo)
            #expect(photos.count == 1)
            let photo = try #require(photos.first)
            #expect(photo.naturalSize == MediaAsset.Size(width: 640, height: 480))
            try await manager.stopSession()
        }

        /// The web preview's photo button: the application runs the session (at its default
        /// preset, the camera's largest size) and the manager must not switch it to the
        /// seed's `.medium` for the photo — the picture and the photo stay the stream's size.
        @Test func aPhotoOfASessionTheAppRunsHasTheStreamsSize() async throws {
            let (manager, _, _) = try makeManager()
            let camera = try makeTestCamera("manager photo size") { $0.sizes = [.init(width: 320, height: 240), .init(width: 960, height: 540)] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try manager.configureVideoInput(device: camera)
            try manager.captureSession.startRunning()
            let streamed = manager.captureSession.sessionPreset
            let saved = try await manager.takePhoto()
            #expect(saved.asset.naturalSize == MediaAsset.Size(width: 960, height: 540), "the seed's .medium would take 320x240")
            #expect(manager.captureSession.sessionPreset == streamed)
            try await manager.stopSession()
        }

        @Test(.tags(.childProcess)) func aMovieGoesToTheLibraryWithA100PixelCover() async throws {
            let (manager, calls, _) = try makeManager()
            manager.configureSessionPreset(.vga640x480)
            let frames = CaptureVideoDataOutput()
            let clock = SampleRecorder()
            clock.attach(to: frames)
            try await manager.startRecordingMovieFile()
            try manager.captureSession.addOutput(frames)
            let added = MonotonicClock.nanoseconds()
            let frameDuration = try #require(manager.activeCamera?.activeVideoMinFrameDuration)
            // 30 frames captured while recording, on the camera's clock (however many of them
            // this machine managed to deliver), every one handed to the movie output.
            #expect(await clock.waitUntilCaptured(30, of: frameDuration, after: added) != nil)
            #expect(manager.isRecordingMovieFile)
            let saved = try await manager.finishRecordingMovieFile()
            #expect(await calls.names.wait(forCount: 2, timeout: .seconds(30)))
            #expect(calls.names.items == ["mediaCaptureMovieFileSuccess", "assetLibraryWriteMovieFileSuccess"])
            #expect(calls.coverWidths.items == [100])
            #expect(saved.coverImage.width == 100)
            #expect(saved.coverImage.height == 75)
            let movies = try manager.library.assets(kind: .video)
            #expect(movies.map(\.id) == [saved.asset.id])
            let probe = try ProbedMovie.probe(saved.asset.fileURL.path)
            #expect(probe.video?.codec == "h264")
            #expect(probe.audio != nil, "the manager records the default microphone")
            let timeline = try MovieTimeline(saved.asset.fileURL.path, frameDuration: frameDuration)
            timeline.expectAccounted(saved.recording, probe: probe, covering: 30)
            try timeline.expectInSync(probe)
            #expect(abs(saved.asset.duration.seconds - probe.duration) < 0.002, "the library indexed \(saved.asset.duration.seconds) s")
            try await manager.stopSession()
        }
    }
}

/// Configuring a manager without running its session: nothing real-time.
@Suite(.excludable)
struct CaptureManagerConfigurationTests {
    @Test func unsupportedControlsReportDeviceConfigurationFailed() async throws {
        let (manager, calls, _) = try makeManager()
        try manager.configureVideoInput(position: .back)
        #expect(manager.activeCamera != nil)
        do {
            try manager.setTorchMode(.on)
            Issue.record("the virtual camera has no torch")
        } catch {
            #expect(error.code == .notSupported)
        }
        #expect(await calls.names.wait(forCount: 1, timeout: .seconds(30)))
        #expect(calls.names.items == ["deviceConfigurationFailed"])
    }

    @Test func theSeedsCameraFallbackFindsACamera() {
        // Without hardware the built-in virtual cameras face back and front, as an iPhone's.
        if !CaptureDevice.allDevices.contains(where: { !$0.isVirtual && $0.hasMediaType(.video) }) {
            #expect(CaptureManager.camera(for: .back)?.uniqueID == "virtual-camera")
            #expect(CaptureManager.camera(for: .front)?.uniqueID == "virtual-front-camera")
        }
        #expect(CaptureManager.camera(for: .unspecified) == CaptureDevice.default(for: .video))
    }
}
