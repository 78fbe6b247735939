import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// What modern iOS photo code sets: preview photos (real), the dictionary form of the
    /// settings, and the iPhone-only features that report "not supported" and stay off.
    @Suite(.serialized)
    struct PortedPhotoFeaturesTests {
        @Test func aPreviewPhotoComesBesideThePhoto() async throws {
            let camera = try makeTestCamera("preview photo") { $0.sizes = [.init(width: 640, height: 480)] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await PhotoOutputTests.running(camera)
            defer { try? session.stopRunning() }

            var settings = CapturePhotoSettings()
            let format = try #require(settings.availablePreviewPhotoPixelFormatTypes.first)
            settings.previewPhotoFormat = [PixelBufferPixelFormatTypeKey: format, PixelBufferWidthKey: 160, PixelBufferHeightKey: 160]
            #expect(settings.previewPhotoPixelFormat == .bgra)
            let photo = try await output.capturePhoto(with: settings)
            // 640x480 into 160x160 keeps 4:3.
            #expect(photo.resolvedSettings.previewDimensions == PhotoDimensions(width: 160, height: 120))
            let preview = try #require(photo.previewPixelBuffer)
            #expect(preview.pixelFormat == .bgra && preview.width == 160 && preview.height == 120)

            // Without a preview format there is none; the default size fits 256 x 256.
            let plain = try await output.capturePhoto(with: CapturePhotoSettings())
            #expect(plain.previewPixelBuffer == nil && plain.resolvedSettings.previewDimensions == .zero)
            var defaultSize = CapturePhotoSettings()
            defaultSize.previewPhotoFormat = [PixelBufferPixelFormatTypeKey: PixelFormat.bgra]
            #expect(try await output.capturePhoto(with: defaultSize).resolvedSettings.previewDimensions == PhotoDimensions(width: 256, height: 192))
        }

        @Test func theSettingsDictionaryPicksTheFileType() {
            #expect(CapturePhotoSettings(format: [VideoCodecKey: VideoCodecType.hevc]).fileType == .heif)
            #expect(CapturePhotoSettings(format: [VideoCodecKey: VideoCodecType.jpeg]).fileType == .jpeg)
            #expect(CapturePhotoSettings(format: [:]).fileType == .jpeg)
            let output = CapturePhotoOutput()
            #expect(output.availablePhotoCodecTypes.contains(.jpeg))
            #expect(output.availablePhotoCodecTypes.contains(.hevc) == output.availablePhotoFileTypes.contains(.heif))
        }

        @Test func iPhoneOnlyFeaturesStayOffAndALivePhotoIsRefused() async throws {
            let camera = try makeTestCamera("live photo")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await PhotoOutputTests.running(camera)
            defer { try? session.stopRunning() }
            output.isLivePhotoCaptureEnabled = output.isLivePhotoCaptureSupported
            output.isResponsiveCaptureEnabled = true
            output.isFastCapturePrioritizationEnabled = true
            output.isAutoDeferredPhotoDeliveryEnabled = true
            #expect(!output.isLivePhotoCaptureEnabled && !output.isResponsiveCaptureEnabled)
            #expect(!output.isFastCapturePrioritizationEnabled && !output.isAutoDeferredPhotoDeliveryEnabled)
            output.maxPhotoQualityPrioritization = .quality
            #expect(output.maxPhotoQualityPrioritization == .quality)

            var settings = CapturePhotoSettings()
            settings.livePhotoMovieFileURL = FileManager.default.temporaryDirectory.appendingPathComponent("live.mov")
            await #expect(throws: CaptureError.self) { _ = try await output.capturePhoto(with: settings) }
            do {
                _ = try await output.capturePhoto(with: CapturePhotoSettings(from: settings))
            } catch {
                #expect(error.code == .notSupported)
            }
            // The session goes on: the next photo works.
            #expect(try await output.capturePhoto(with: CapturePhotoSettings()).fileDataRepresentation() != nil)
        }

        @Test func settablePropertiesKeepTheOldValueWhenTheDeviceRefuses() throws {
            let camera = try makeTestCamera("settable properties")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            let focus = camera.focusMode
            for mode in CaptureDevice.FocusMode.allCases where !camera.isFocusModeSupported(mode) {
                camera.focusMode = mode
                #expect(camera.focusMode == focus)
            }
            #expect(!camera.isFocusPointOfInterestSupported)
            camera.focusPointOfInterest = CGPoint(x: 0.1, y: 0.9)
            #expect(camera.focusPointOfInterest == CGPoint(x: 0.5, y: 0.5))
            let active = camera.activeFormat
            let other = try #require(camera.formats.first { $0 != active })
            camera.activeFormat = other
            #expect(camera.activeFormat == other)
            camera.isSubjectAreaChangeMonitoringEnabled = true
            #expect(camera.isSubjectAreaChangeMonitoringEnabled)
            #expect(camera.activeFormat.formatDescription.dimensions == VideoDimensions(width: other.width, height: other.height))
        }

        @Test func theConnectionAngleIsSettableAndRefusesOddAngles() throws {
            let camera = try makeTestCamera("rotation property")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, outputs: [output])
            _ = session
            let connection = try #require(output.connection(with: .video))
            connection.videoRotationAngle = 90
            #expect(connection.videoRotationAngle == 90)
            connection.videoRotationAngle = 45
            #expect(connection.videoRotationAngle == 90)
            let coordinator = CaptureDevice.RotationCoordinator(device: camera, previewLayer: nil)
            #expect(coordinator.videoRotationAngleForHorizonLevelCapture == 0)
            #expect(connection.videoPreviewLayer == nil)
        }
    }
}
