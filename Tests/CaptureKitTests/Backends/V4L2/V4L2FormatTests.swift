import Glibc
import Testing
@testable import CaptureKit

/// ENUM_FMT × ENUM_FRAMESIZES × ENUM_FRAMEINTERVALS parsing, and S_FMT / S_PARM read back with
/// the substitutions drivers make.
@Suite("V4L2Formats", .excludable)
struct V4L2FormatTests {
    typealias Entry = ScriptedV4L2Device.FormatEntry

    private func formats(_ entries: [Entry]) throws -> (formats: [CaptureDevice.Format], unsupported: [V4L2FourCC]) {
        var script = ScriptedV4L2Device.Script()
        script.formats = entries
        return try V4L2FormatEnumerator(io: ScriptedV4L2Device(script: script), bufferType: .capture).formats()
    }

    @Test func discreteSizesAndIntervalsBecomeOneFormatPerSize() throws {
        let entry = Entry(description: V4L2FormatDescription(fourCC: .yuyv, description: "YUYV", isCompressed: false),
                          sizes: [.discrete(width: 640, height: 480), .discrete(width: 320, height: 240)],
                          intervals: [.discrete(V4L2Fixtures.fraction(1, 30)), .discrete(V4L2Fixtures.fraction(1001, 30000)),
                                      .discrete(V4L2Fixtures.fraction(1, 15))])
        let result = try formats([entry])
        #expect(result.formats.map { "\($0.width)x\($0.height)" } == ["640x480", "320x240"])
        let first = result.formats[0]
        #expect(first.fourCC == "YUYV")
        #expect(first.pixelFormat == .yuyv422)
        #expect(first.encoding == .uncompressed)
        #expect(first.videoSupportedFrameRateRanges.map(\.minFrameDuration) == [
            MediaTime(value: 1, timescale: 30), MediaTime(value: 1001, timescale: 30000), MediaTime(value: 1, timescale: 15)])
        #expect(abs(first.videoSupportedFrameRateRanges[1].maxFrameRate - 29.97) < 0.01)
        #expect(first.supportsFrameDuration(MediaTime(value: 1, timescale: 15)))
        #expect(!first.supportsFrameDuration(MediaTime(value: 1, timescale: 60)))
    }

    @Test func continuousSizesListTheirEndsAndTheCommonSizesInside() throws {
        let entry = Entry(description: V4L2FormatDescription(fourCC: .nv12, description: "NV12", isCompressed: false),
                          sizes: [.stepwise(minWidth: 2, maxWidth: 640, stepWidth: 1, minHeight: 2, maxHeight: 480, stepHeight: 1)],
                          intervals: [.discrete(V4L2Fixtures.fraction(1, 30))])
        let sizes = try formats([entry]).formats.map { "\($0.width)x\($0.height)" }
        #expect(sizes == ["2x2", "160x120", "176x144", "320x180", "320x240", "352x288", "640x360", "640x480"])
    }

    @Test func stepwiseSizesKeepToTheirGrid() throws {
        let sizes = V4L2FormatEnumerator.sizes(minWidth: 16, maxWidth: 1280, stepWidth: 16, minHeight: 16, maxHeight: 720, stepHeight: 16)
        #expect(sizes.map { "\($0.width)x\($0.height)" } == ["16x16", "176x144", "320x240", "352x288", "640x480", "1024x576", "1280x720"], "1024x768 is taller than the range")
    }

    @Test func stepwiseIntervalsBecomeOneRange() throws {
        let entry = Entry(description: V4L2FormatDescription(fourCC: .rgb24, description: "RGB3", isCompressed: false),
                          sizes: [.discrete(width: 320, height: 180)],
                          intervals: [.stepwise(minimum: V4L2Fixtures.fraction(1, 60), maximum: V4L2Fixtures.fraction(1, 1), step: V4L2Fixtures.fraction(1, 1))])
        let format = try #require(try formats([entry]).formats.first)
        #expect(format.pixelFormat == .rgb24)
        #expect(format.videoSupportedFrameRateRanges.count == 1)
        #expect(format.videoSupportedFrameRateRanges[0].maxFrameRate == 60)
        #expect(format.videoSupportedFrameRateRanges[0].minFrameRate == 1)
        #expect(format.supportsFrameDuration(MediaTime(value: 1, timescale: 24)))
    }

    @Test func unreadableFourCCsAreSkippedAndNamedAndMJPEGDecodesToRGB() throws {
        let result = try formats([
            Entry(description: V4L2FormatDescription(fourCC: V4L2FourCC("YVYU"), description: "YVYU", isCompressed: false),
                  sizes: [.discrete(width: 64, height: 48)], intervals: [.discrete(V4L2Fixtures.fraction(1, 30))]),
            Entry(description: V4L2FormatDescription(fourCC: .mjpeg, description: "Motion-JPEG", isCompressed: true),
                  sizes: [.discrete(width: 64, height: 48)], intervals: [.discrete(V4L2Fixtures.fraction(1, 30))]),
        ])
        #expect(result.unsupported.map(\.description) == ["YVYU"])
        #expect(result.formats.count == 1)
        #expect(result.formats[0].encoding == .mjpeg)
        #expect(result.formats[0].fourCC == "MJPG")
        #expect(result.formats[0].pixelFormat == .rgb24)
        #expect(result.formats[0].description.contains("mjpeg"))
    }

    @Test func driverWithoutIntervalEnumerationRunsAtItsCurrentRate() throws {
        var script = V4L2Fixtures.yuyvScript()
        script.failures["VIDIOC_ENUM_FRAMEINTERVALS"] = ENOTTY
        let formats = try V4L2FormatEnumerator(io: ScriptedV4L2Device(script: script), bufferType: .capture).formats().formats
        #expect(formats.first?.videoSupportedFrameRateRanges == [CaptureDevice.FrameRateRange(fps: 30)])
    }

    @Test func fourCCsRoundTripThroughText() {
        #expect(V4L2FourCC(string: "YUYV") == .yuyv)
        #expect(V4L2FourCC(string: "RGB3") == .rgb24)
        #expect(V4L2FourCC.mjpeg.description == "MJPG")
        #expect(V4L2FourCC(string: "") == nil)
        #expect(V4L2FourCC(string: "TOOLONG") == nil)
    }

    @Test func frameLayoutFollowsTheDriversStride() throws {
        let layout = try V4L2FrameLayout(V4L2PixFormat(fourCC: .yu12, width: 6, height: 4, bytesPerLine: 8))
        #expect(layout.planes.map(\.offset) == [0, 32, 40])
        #expect(layout.planes.map(\.bytesPerRow) == [8, 4, 4])
        #expect(layout.planes.map(\.rowCount) == [4, 2, 2])
        #expect(layout.byteCount == 48)
        let nv12 = try V4L2FrameLayout(V4L2PixFormat(fourCC: .nv12, width: 6, height: 4, bytesPerLine: 0))
        #expect(nv12.planes.map(\.bytesPerRow) == [6, 6])
        #expect(nv12.byteCount == 36)
    }

    @Test func presetsTakeMJPEGWhenRawCannotReachTheSizeAndRate() throws {
        // A typical webcam: raw 4:2:2 at 10 fps in HD, MJPEG at 30.
        let result = try formats([
            Entry(description: V4L2FormatDescription(fourCC: .yuyv, description: "YUYV", isCompressed: false),
                  sizes: [.discrete(width: 1280, height: 720), .discrete(width: 640, height: 480)],
                  intervals: [.discrete(V4L2Fixtures.fraction(1, 30))]),
            Entry(description: V4L2FormatDescription(fourCC: .mjpeg, description: "MJPG", isCompressed: true),
                  sizes: [.discrete(width: 1280, height: 720), .discrete(width: 640, height: 480)],
                  intervals: [.discrete(V4L2Fixtures.fraction(1, 30))]),
        ])
        // Raw HD only reaches 10 fps on this camera.
        let formats = result.formats.map { format in
            format.fourCC == "YUYV" && format.width == 1280
                ? CaptureDevice.Format(pixelFormat: .yuyv422, width: 1280, height: 720, frameRateRanges: [CaptureDevice.FrameRateRange(fps: 10)],
                                       encoding: .uncompressed, fourCC: "YUYV")
                : format
        }
        #expect(CaptureSession.bestFormat(for: .hd1280x720, among: formats)?.0.fourCC == "MJPG")
        #expect(CaptureSession.bestFormat(for: .high, among: formats)?.0.fourCC == "MJPG")
        #expect(CaptureSession.bestFormat(for: .vga640x480, among: formats)?.0.fourCC == "YUYV", "raw wins where both reach the rate")
    }

    // MARK: Substitution

    private func device(_ script: ScriptedV4L2Device.Script) throws -> (CaptureDevice, ScriptedOpener) {
        let (backend, opener) = try V4L2Fixtures.backend(script)
        return (CaptureDevice(backend: backend), opener)
    }

    private func twoSizeScript() -> ScriptedV4L2Device.Script {
        var script = V4L2Fixtures.yuyvScript()
        script.formats[0].sizes = [.discrete(width: 640, height: 480), .discrete(width: 320, height: 240)]
        return script
    }

    @Test func substitutedSizeIsAdoptedAndReported() throws {
        var script = twoSizeScript()
        script.substituteFormat = { format in var f = format; f.width = 320; f.height = 240; return f }
        let (camera, _) = try device(script)
        let vga = try #require(camera.formats.first { $0.width == 640 })
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setActiveFormat(vga)
        #expect(camera.activeFormat.width == 320)
        #expect(camera.activeFormat.height == 240)
        let substitution = try #require(camera.lastFormatSubstitution)
        #expect(substitution.requestedFormat == vga)
        #expect(substitution.actualFormat.width == 320)
        #expect(substitution.description.contains("asked for 640x480 YUYV"))
    }

    @Test func substitutedFrameRateIsAdoptedAndReported() throws {
        var script = twoSizeScript()
        script.substituteInterval = { _ in V4L2Fixtures.fraction(1, 15) }
        let (camera, opener) = try device(script)
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 30))
        #expect(camera.activeVideoMinFrameDuration == MediaTime(value: 1, timescale: 15))
        #expect(camera.lastFormatSubstitution?.actualFrameDuration == MediaTime(value: 1, timescale: 15))
        #expect(opener.opened.last?.calls.contains("VIDIOC_S_PARM") == true)
    }

    @Test func substitutionToAFormatTheDeviceDoesNotListIsAnError() throws {
        var script = twoSizeScript()
        script.substituteFormat = { format in var f = format; f.width = 100; f.height = 100; return f }
        let (camera, _) = try device(script)
        let vga = try #require(camera.formats.first { $0.width == 640 })
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        #expect {
            try camera.setActiveFormat(vga)
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .unsupportedFormat && error.message.contains("chose 100x100") && error.operation == "VIDIOC_S_FMT"
        }
        #expect(camera.activeFormat.width == 640, "the active format is unchanged after a failed change")
    }

    @Test func settingsNeedTheLockBeforeTouchingTheDriver() throws {
        let (camera, opener) = try device(twoSizeScript())
        let opens = opener.opened.count
        #expect(throws: CaptureError.self) { try camera.setActiveFormat(camera.formats[1]) }
        #expect(opener.opened.count == opens, "no S_FMT without lockForConfiguration()")
    }

    @Test func busyDriverRefusesAFormatChangeWithTheReason() throws {
        var script = twoSizeScript()
        script.failures["VIDIOC_S_FMT"] = EBUSY
        let (camera, _) = try device(script)
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        #expect {
            try camera.setActiveFormat(camera.formats[1])
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .deviceBusy && error.message.contains("in use by another process")
        }
    }
}
