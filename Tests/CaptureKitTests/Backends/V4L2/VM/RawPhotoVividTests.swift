import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// Raw photos from vivid streaming Bayer samples: the DNG's samples against the frame
    /// v4l2-ctl receives in the same format, and its colours as dcraw demosaics them against
    /// vivid's colour bars.
    @Suite struct RawPhotoVividTests {
        static let width = 640, height = 480

        /// vivid's static colour bars, no text, stamped at the start of exposure.
        static func still(_ node: String) throws {
            try V4L2Ctl.set(node, ["test_pattern": "0", "osd_text_mode": "2", "horizontal_movement": "3", "vertical_movement": "3"])
        }

        /// `dng`'s samples where the colour bars are sampled, as dcraw reads them (not demosaiced),
        /// against `reference`; then its colours, demosaiced by dcraw, against the bars.
        static func check(_ dng: String, fourCC: String, format: PixelFormat, reference: [UInt8], in scratch: PhotoScratch) throws {
            let wide = format.bayerBitDepth != 8
            let stored = try NetpbmImage(PhotoTools.run("dcraw", ["-D", "-4", "-c", dng], in: scratch))
            #expect(stored.width == width && stored.height == height)
            var wrong: [String] = []
            for point in ColorBarPattern.samplePoints(width: width, height: height) {
                for (x, y) in [(point.x, point.y), (point.x + 1, point.y), (point.x, point.y + 1)] {
                    let index = y * width + x
                    let want = wide ? Int(reference[2 * index]) | Int(reference[2 * index + 1]) << 8 : Int(reference[index])
                    if stored.pixel(x: x, y: y)[0] != want { wrong.append("(\(x),\(y)) \(stored.pixel(x: x, y: y)[0]) but v4l2-ctl \(want)") }
                }
            }
            #expect(wrong.isEmpty, "\(fourCC): \(wrong.count) samples differ from v4l2-ctl's frame: \(wrong.prefix(6))")
            let colour = try NetpbmImage(PhotoTools.run("dcraw", ["-c", "-4", "-o", "0", "-r", "1", "1", "1", "1", "-q", "0", dng], in: scratch))
            var off: [String] = []
            for point in ColorBarPattern.samplePoints(width: width, height: height) {
                let rgb = colour.pixel(x: point.x, y: point.y).map { $0 / 257 }
                if ColorBarPattern.distance((rgb[0], rgb[1], rgb[2]), toBar: point.bar) > 24 {
                    off.append("(\(point.x),\(point.y)) \(rgb) is not \(ColorBarPattern.bars[point.bar].name)")
                }
            }
            #expect(off.isEmpty, "\(fourCC): \(off.count) demosaiced pixels off: \(off.prefix(6))")
        }

        @Test(arguments: ["RGGB", "BA81", "BG10", "GB12", "GR16"])
        func rawPhotoKeepsVividsSamples(_ fourCC: String) async throws {
            try #require(PhotoTools.isInstalled("dcraw"), "dcraw (scripts/install-deps.sh)")
            let node = VMEnvironment.vivid(0)
            try Self.still(node)
            let reference = try V4L2Ctl.captureFrame(node, fourCC: fourCC, width: Self.width, height: Self.height)
            let device = try VMEnvironment.device(at: node)
            let format = try VMCapture.format(device, fourCC: fourCC, width: Self.width, height: Self.height)
            let bayer = try #require(format.pixelFormat)
            #expect(bayer.isBayer)
            let photo = try await VMCapture.rawPhoto(device, format, fps: 25)
            let scratch = try PhotoScratch()
            let dng = try scratch.write(try #require(photo.fileDataRepresentation()), as: "vivid.dng")
            try Self.check(dng, fourCC: fourCC, format: bayer, reference: reference, in: scratch)
            let tags = try PhotoTools.exif(dng, in: scratch)
            #expect(tags["Model"] as? String == device.localizedName && tags["DNGVersion"] as? String == "1 4 0 0", "\(tags)")
        }

        /// `capture photo OUT.dng` picks the camera's largest Bayer format by itself.
        @Test func theCommandLineWritesADNG() throws {
            try #require(PhotoTools.isInstalled("dcraw"), "dcraw (scripts/install-deps.sh)")
            let node = VMEnvironment.vivid(0)
            try Self.still(node)
            let scratch = try PhotoScratch()
            let dng = "\(scratch.path)/cli.dng"
            let result = try CaptureTool.run(["photo", dng, "--device", node, "--size", "\(Self.width)x\(Self.height)"], timeout: .seconds(120))
            #expect(result.status == 0, "\(result)")
            #expect(result.output.contains("dng"), "\(result.output)")
            let tags = try PhotoTools.exif(dng, in: scratch)
            #expect(tags["ImageWidth"] as? Int == Self.width && tags["PhotometricInterpretation"] as? Int == 32803, "\(tags)")
            let colour = try NetpbmImage(PhotoTools.run("dcraw", ["-c", "-4", "-o", "0", "-r", "1", "1", "1", "1", "-q", "0", dng], in: scratch))
            let off = ColorBarPattern.samplePoints(width: Self.width, height: Self.height).filter { point in
                let rgb = colour.pixel(x: point.x, y: point.y).map { $0 / 257 }
                return ColorBarPattern.distance((rgb[0], rgb[1], rgb[2]), toBar: point.bar) > 24
            }
            #expect(off.isEmpty, "\(off.count) demosaiced pixels off")
        }
    }
}
