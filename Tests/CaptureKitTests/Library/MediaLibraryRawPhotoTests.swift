import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// Raw photos (DNG) in the media library: a raw photo's bytes land as a `.dng` photo of the
/// sensor's size, stored as given (exiftool reads its DNG tags back from the library's file),
/// listed again when the library is opened anew, and shown demosaiced by `AssetImageGenerator`;
/// TIFF files that are no DNG, and DNGs under another extension, are refused and leave nothing.
@Suite("MediaLibraryRawPhoto", .timeLimit(.minutes(2)), .excludable)
struct MediaLibraryRawPhotoTests {
    static let width = 320, height = 240

    /// A DNG of the Bayer scene, as a raw photo's `fileDataRepresentation()` is made.
    static func dng(_ format: PixelFormat = .bayerRGGB12) throws -> Data {
        var metadata = EXIFMetadata()
        metadata.make = "CaptureKit"
        metadata.model = "Raw Test Camera"
        return try DNGEncoder.encode(try BayerScene.frame(width: width, height: height, format: format), metadata: metadata)
    }

    @Test(.tags(.childProcess), .enabled(if: DNGEncoder.isAvailable, "libtiff (scripts/install-deps.sh)"))
    func rawPhotoBytesLandAsADNGPhotoShownDemosaiced() async throws {
        let root = LibraryFixtures.root()
        let library = try MediaLibrary(root: root)
        let dng = try Self.dng()
        let saved = try await library.saveImage(dng)
        #expect(saved.fileURL.pathExtension == "dng")
        #expect(LibraryFixtures.isGeneratedName(saved.fileURL.lastPathComponent, id: saved.id))
        #expect(saved.kind == .photo && saved.naturalSize == MediaAsset.Size(width: Self.width, height: Self.height))
        #expect(try Data(contentsOf: saved.fileURL) == dng, "the bytes are stored as given")
        let scratch = try PhotoScratch()
        let tags = try PhotoTools.exif(saved.fileURL.path, in: scratch)
        #expect(tags["FileType"] as? String == "DNG" && tags["DNGVersion"] as? String == "1 4 0 0", "\(tags)")
        #expect(tags["ImageWidth"] as? Int == Self.width && tags["ImageHeight"] as? Int == Self.height)

        // Shown demosaiced: each colour bar in its colour, the ramp grey.
        let generator = AssetImageGenerator(asset: saved)
        let (image, _) = try await generator.image(at: .zero)
        #expect(image.width == Self.width && image.height == Self.height && image.pixelFormat == .bgra)
        var off: [String] = []
        image.withUnsafeBytes(ofPlane: 0) { bytes in
            for point in BayerScene.points(width: Self.width, height: Self.height) {
                let offset = point.y * image.bytesPerRow(ofPlane: 0) + 4 * point.x
                let got = (Int(bytes[offset + 2]), Int(bytes[offset + 1]), Int(bytes[offset]))
                let want = BayerScene.rgb(x: point.x, y: point.y, width: Self.width, height: Self.height)
                // The viewer's white level and demosaicing differ from the scene's: the colour,
                // not the exact level, is what must hold.
                if abs(got.0 - want.0) > 40 || abs(got.1 - want.1) > 40 || abs(got.2 - want.2) > 40 {
                    off.append("(\(point.x),\(point.y)) \(got) not \(want)")
                }
            }
        }
        #expect(off.isEmpty, "\(off.count) pixels off: \(off.prefix(6))")

        // Opened anew, the library lists it as it was saved.
        let reopened = try MediaLibrary(root: root)
        let listed = try #require(try reopened.asset(id: saved.id))
        #expect(listed.fileURL.pathExtension == "dng" && listed.kind == .photo && listed.naturalSize == saved.naturalSize)
        try LibraryFixtures.expectConsistent(reopened)
    }

    @Test(.enabled(if: DNGEncoder.isAvailable, "libtiff (scripts/install-deps.sh)"))
    func tiffsThatAreNoDNGAndMisnamedDNGsAreRefused() throws {
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let dng = try Self.dng(.bayerBGGR8)
        // A little-endian TIFF whose only directory entry is ImageWidth; a DNG whose header
        // points past its end.
        let tiff = Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x00, 0x01, 3, 0, 1, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0])
        var cut = dng.prefix(16)
        cut.replaceSubrange(cut.startIndex + 4..<cut.startIndex + 8, with: [0xFF, 0xFF, 0, 0])
        for (name, data) in [("a TIFF without DNGVersion", tiff), ("a DNG cut short", cut)] {
            do throws(CaptureError) {
                _ = try library.saveImage(data)
                Issue.record("\(name) was saved")
            } catch {
                #expect(error.code == .unsupportedFile, "\(name): \(error)")
            }
        }
        for fileExtension in ["jpg", "tiff"] {
            do throws(CaptureError) {
                _ = try library.saveImage(dng, fileExtension: fileExtension)
                Issue.record("a DNG was saved as '\(fileExtension)'")
            } catch {
                #expect(error.code == .invalidArgument, "'\(fileExtension)': \(error)")
            }
        }
        #expect(try library.assets().isEmpty)
        #expect(LibraryFixtures.names(library.photosDirectory).isEmpty, "a refused image leaves no file")
        #expect(try library.saveImage(dng, fileExtension: "DNG").fileURL.pathExtension == "dng")
    }
}
