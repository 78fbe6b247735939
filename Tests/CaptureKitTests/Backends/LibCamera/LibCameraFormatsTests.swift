import Foundation
import Testing
@testable import CaptureKit

/// libcamera's DRM FourCC names against the layouts CaptureKit knows (the cameras themselves are
/// tested in the VM: LibCameraIntegrationTests).
@Suite struct LibCameraFormatsTests {
    static func fourCC(_ text: String) -> UInt32 { text.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) } }

    @Test func drmNamesPackedRGBByItsWordNotItsBytes() {
        // DRM_FORMAT_RGB888 is B, G, R in memory (V4L2 BGR24); BGR888 is R, G, B (V4L2 RGB24).
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("RG24")) == .bgr24)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("BG24")) == .rgb24)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("XR24")) == .bgra)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("NV12")) == .nv12)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("YU12")) == .yuv420p)
        // MJPEG is not a layout a frame can be handed out in; neither is the shim's 0 (a
        // format with a modifier: CSI-2 packed raw).
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("MJPG")) == nil)
        #expect(LibCameraFormats.pixelFormat(drm: 0) == nil)
    }

    /// The raw role's Bayer formats: DRM names 8, 10 and 12 bits as V4L2 does, 16 bits not
    /// always (SRGGB16 is `RGB6` in DRM, `RG16` in V4L2).
    @Test func rawBayerFormatsAreTheirV4L2Twins() {
        for (code, format) in V4L2FourCC.bayer where format.bayerBitDepth != 16 {
            #expect(LibCameraFormats.pixelFormat(drm: code.rawValue) == format, "\(code)")
        }
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("RGB6")) == .bayerRGGB16)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("BYR2")) == .bayerBGGR16)
        #expect(LibCameraFormats.pixelFormat(drm: Self.fourCC("RG16")) == nil)
        #expect(LibCameraFormats.known.filter(\.format.isBayer).count == 16)
    }

    @Test func everyLayoutGoesBackToADRMFormatOfIt() {
        for entry in LibCameraFormats.known {
            let formats = LibCameraFormats.drmFormats(for: entry.format)
            #expect(formats.contains(entry.drm))
            #expect(formats.allSatisfy { LibCameraFormats.pixelFormat(drm: $0) == entry.format })
        }
    }

    /// libcamera is loaded only where it can have cameras (it costs a process ~20 ms at start),
    /// and then from the library built beside the binary.
    @Test(.enabled(if: !LibCamera.hasMediaDevices, "this machine has a media controller device"))
    func withoutAMediaControllerLibCameraIsNeitherLoadedNorStarted() throws {
        #expect(!LibCamera.isAvailable)
        #expect(LibCameraDeviceProvider.shared.backends().isEmpty)
        #expect(!CaptureDevice.allDevices.contains { $0.uniqueID.hasPrefix("libcamera:") })
        let before = try Self.mappedFiles()
        #expect(before.contains { $0.hasSuffix("/CaptureKitPackageTests.xctest") }, "the maps were read")
        #expect(!before.contains { $0.contains("libcamera") }, "libcamera was loaded")

        #expect(LibCamera.loadPlugin() == nil)
        #expect(try Self.mappedFiles().contains { $0.hasSuffix("/libCaptureKitLibCamera.so") })
        #expect(try Self.mappedFiles().contains { $0.contains("/libcamera.so") })
    }

    static func mappedFiles() throws -> [String] {
        // Read, not sized: procfs files report no size.
        let maps = try #require(try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd())
        return String(decoding: maps, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init)
        }
    }
}
