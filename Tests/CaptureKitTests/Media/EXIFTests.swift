import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// The EXIF block libexif builds for photos, and the orientation arithmetic, checked against the
/// EXIF definitions.
@Suite(.excludable)
struct EXIFTests {
    /// Metadata with every field set, at a fixed instant (2024-02-29 08:15:07.250 UTC).
    static var fullMetadata: EXIFMetadata {
        var metadata = EXIFMetadata()
        metadata.orientation = .rightMirrored
        metadata.make = "CaptureKit"
        metadata.model = "Door Camera"
        metadata.software = "CaptureKit"
        metadata.dateTimeOriginal = Date(timeIntervalSince1970: 1_709_194_507.25)
        metadata.timeZoneOffset = 5 * 3600 + 30 * 60
        metadata.pixelWidth = 640
        metadata.pixelHeight = 480
        metadata.exposureTime = 1.0 / 60
        metadata.isoSpeed = 400
        metadata.flashFired = false
        return metadata
    }

    @Test func connectionRotationAndMirroringMapToEXIFValues() {
        let expected: [(Double, Bool, EXIFOrientation)] = [
            (0, false, .up), (90, false, .right), (180, false, .down), (270, false, .left),
            (0, true, .upMirrored), (90, true, .leftMirrored), (180, true, .downMirrored), (270, true, .rightMirrored),
            (-90, false, .left), (450, false, .right),
        ]
        for (angle, mirrored, orientation) in expected {
            #expect(EXIFOrientation(rotationAngle: angle, isMirrored: mirrored) == orientation, "\(angle)° mirrored \(mirrored)")
        }
        #expect(EXIFOrientation.allCases.map(\.rawValue) == Array(1...8))
        #expect(EXIFOrientation.allCases.filter(\.swapsDimensions) == [.leftMirrored, .right, .rightMirrored, .left])
    }

    @Test func pixelTurnsFollowTheEXIFDefinitions() throws {
        // A plane whose every sample differs (mod 256), odd-sized so no symmetry can hide a bug.
        let (width, height) = (7, 5)
        let source = try PixelBuffer(width: width, height: height, pixelFormat: .gray8)
        let values = (0..<width * height).map { UInt8($0 * 7 % 256) }
        source.withUnsafeMutableBytes(ofPlane: 0) { raw in
            for y in 0..<height { for x in 0..<width { raw[y * source.bytesPerRow(ofPlane: 0) + x] = values[y * width + x] } }
        }
        for orientation in EXIFOrientation.allCases {
            let swaps = orientation.swapsDimensions
            let target = try PixelBuffer(width: swaps ? height : width, height: swaps ? width : height, pixelFormat: .gray8)
            PixelTransform.turn(source, into: target, by: orientation)
            #expect(target.packedBytes() == applyEXIFOrientation(orientation.rawValue, to: values, width: width, height: height),
                    "orientation \(orientation)")
        }
    }

    @Test func dateFieldsNeverRoundIntoTheNextSecond() throws {
        var metadata = EXIFMetadata()
        metadata.dateTimeOriginal = Date(timeIntervalSince1970: 1_709_194_507.9996)
        metadata.timeZoneOffset = -(3 * 3600 + 30 * 60)
        let fields = try #require(metadata.exifDateFields)
        #expect(fields.dateTime == "2024:02:29 04:45:07")
        #expect(fields.subSeconds == "999")
        #expect(fields.offset == "-03:30")
        #expect(EXIFMetadata().exifDateFields == nil)
    }

    @Test func exposureTimesBecomeEXIFRationals() {
        #expect(EXIFWriter.rational(1.0 / 60) == (1, 60))
        #expect(EXIFWriter.rational(1.0 / 8000) == (1, 8000))
        #expect(EXIFWriter.rational(2.5) == (5, 2))
        #expect(EXIFWriter.rational(0.0125) == (1, 80))
    }

    /// The block in JPEG and PNG files, read back by exiftool.
    @Suite(.tags(.childProcess))
    struct ReadBackByExiftool {
        @Test func jpegEXIFBlockIsReadBackByExiftool() throws {
            let frame = try TestPattern(width: 640, height: 480, pixelFormat: .nv12).render(frameIndex: 3)
            let jpeg = try JPEGEncoder.encode(frame, quality: 90, metadata: EXIFTests.fullMetadata)
            #expect(Array(jpeg.prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE1])
            let scratch = try PhotoScratch()
            let file = try scratch.write(jpeg, as: "full.jpg")
            let exif = try PhotoTools.exif(file, in: scratch)
            #expect(exif["Make"] as? String == "CaptureKit")
            #expect(exif["Model"] as? String == "Door Camera")
            #expect(exif["Software"] as? String == "CaptureKit")
            #expect(exif["Orientation"] as? Int == 7)
            #expect(exif["DateTimeOriginal"] as? String == "2024:02:29 13:45:07")
            #expect(exif["CreateDate"] as? String == "2024:02:29 13:45:07")
            #expect(exif["ModifyDate"] as? String == "2024:02:29 13:45:07")
            #expect(exif["SubSecTimeOriginal"] as? Int == 250)
            #expect(exif["OffsetTimeOriginal"] as? String == "+05:30")
            #expect(exif["SubSecDateTimeOriginal"] as? String == "2024:02:29 13:45:07.250+05:30")
            #expect(exif["ExifImageWidth"] as? Int == 640)
            #expect(exif["ExifImageHeight"] as? Int == 480)
            #expect(abs((exif["ExposureTime"] as? Double ?? 0) - 1.0 / 60) < 1e-9)
            #expect(exif["ISO"] as? Int == 400)
            #expect(exif["Flash"] as? Int == 0x10)
            #expect("\(exif["ExifVersion"] ?? "")" == "0232")
            #expect(exif["ColorSpace"] as? Int == 1)
            #expect(exif["XResolution"] as? Int == 72)
            #expect(exif["JFIFVersion"] == nil)
            #expect(exif["Warning"] == nil, "exiftool warns: \(exif["Warning"] ?? "")")
            // A strict reader: exiftool's validation of the whole file.
            let validation = try PhotoTools.exif(file, in: scratch, arguments: ["-validate", "-warning", "-a"])
            #expect(validation["Validate"] as? String == "OK", "exiftool -validate: \(validation)")
            // And the picture is still a JPEG any decoder reads.
            #expect(try PhotoTools.probe(file, in: scratch).width == 640)
        }

        @Test func pngEXIFChunkIsReadBackByExiftool() throws {
            let frame = try TestPattern(width: 640, height: 480, pixelFormat: .nv12).render(frameIndex: 3)
            var metadata = EXIFTests.fullMetadata
            metadata.orientation = .left
            let png = try PNGEncoder.encode(frame, metadata: metadata)
            let scratch = try PhotoScratch()
            let file = try scratch.write(png, as: "full.png")
            let exif = try PhotoTools.exif(file, in: scratch)
            #expect(exif["Orientation"] as? Int == 8)
            #expect(exif["Model"] as? String == "Door Camera")
            #expect(exif["SubSecDateTimeOriginal"] as? String == "2024:02:29 13:45:07.250+05:30")
            #expect(exif["Warning"] == nil, "exiftool warns: \(exif["Warning"] ?? "")")
            try PhotoTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-err_detect", "crccheck", "-xerror", "-i", file, "-f", "null", "-"],
                               in: scratch)
        }
    }
}

extension PhotoTools {
    /// exiftool's JSON for `file` with extra arguments, values as exiftool prints them.
    static func exif(_ file: String, in scratch: PhotoScratch, arguments: [String]) throws -> [String: Any] {
        let json = try run("exiftool", ["-j"] + arguments + [file], in: scratch)
        guard let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]], let first = list.first else {
            throw ToolError(description: "exiftool printed no object for \(file)")
        }
        return first
    }
}
