import CaptureKit
import Foundation
import PortTestSupport
import Testing

// The AVCam-style capture service, driven as its camera model drives it: photo mode, a photo,
// the other camera, video mode, a movie, back to photo mode. Every continuation the service
// waits on must resume (a delegate method that was never called would hang here and trip the
// time limit); the files are checked by ffprobe and exiftool.

@Suite("An AVCam-style capture service, ported", .serialized, .timeLimit(.minutes(3)),
       .enabled(if: CaptureDevice.default(for: .video)?.isVirtual == true, "the machine has cameras"))
struct AVCamPortTests {
    private static func write(_ photo: Photo) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avcam-\(UUID().uuidString)")
        try photo.data.write(to: url)
        return url
    }

    @Test func photoCameraSwitchModeSwitchAndMovie() async throws {
        let service = CaptureService()
        defer { CaptureDevice.userPreferredCamera = nil }
        try await service.start(with: .photo)
        #expect(service.captureSession.isRunning)
        #expect(service.captureSession.sessionPreset == .photo)
        let back = try #require(await service.activeCamera)
        #expect(back.position == .back)

        // A photo: HEIF where x265 can encode it, as the sample asks, else JPEG.
        let heif = CapturePhotoOutput().availablePhotoCodecTypes.contains(.hevc)
        let features = PhotoFeatures(isLivePhotoEnabled: false, qualityPrioritization: .quality)
        let photo = try await service.capturePhoto(with: features)
        #expect(!photo.isProxy)
        #expect(photo.livePhotoMovieURL == nil)
        let photoFile = try Self.write(photo)
        defer { try? FileManager.default.removeItem(at: photoFile) }
        let exif = try OutsideTool.exif(photoFile)
        #expect(exif["MIMEType"] as? String == (heif ? "image/heic" : "image/jpeg"))
        #expect(exif["Model"] as? String == back.localizedName)
        #expect((exif["ImageWidth"] as? Int ?? 0) > 0)

        // Tap to focus: the virtual camera cannot aim focus, so nothing changes and nothing fails.
        await service.focusAndExpose(at: CGPoint(x: 0.25, y: 0.75))
        #expect(back.focusPointOfInterest == CGPoint(x: 0.5, y: 0.5))

        // The other camera, then a photo from it.
        await service.selectNextVideoDevice()
        let front = try #require(await service.activeCamera)
        #expect(front.position == .front)
        #expect(CaptureDevice.userPreferredCamera == front)
        #expect(CaptureDevice.systemPreferredCamera == front)
        let frontPhoto = try await service.capturePhoto(with: features)
        let frontFile = try Self.write(frontPhoto)
        defer { try? FileManager.default.removeItem(at: frontFile) }
        #expect(try OutsideTool.exif(frontFile)["Model"] as? String == front.localizedName)

        // Video mode: a movie with sound from the front camera.
        try await service.setCaptureMode(.video)
        #expect(service.captureSession.sessionPreset == .high)
        try await service.startRecording()
        for _ in 0..<1200 where await service.recordedDuration.seconds < 1 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let movie = try await service.stopRecording()
        defer { try? FileManager.default.removeItem(at: movie.url) }
        let (streams, format) = try OutsideTool.probe(movie.url)
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        #expect(video["codec_name"] as? String == "h264")
        #expect(streams.contains { $0["codec_type"] as? String == "audio" })
        #expect(Double(format["duration"] as? String ?? "") ?? 0 >= 1)

        // Back to photo mode: the movie output leaves the session and photos still work.
        try await service.setCaptureMode(.photo)
        #expect(!service.captureSession.outputs.contains { $0 is CaptureMovieFileOutput })
        _ = try await service.capturePhoto(with: features)
        await service.stop()
        #expect(!service.captureSession.isRunning)
        let runtimeErrors = await service.runtimeErrors
        #expect(runtimeErrors.isEmpty, "\(runtimeErrors)")
    }
}
