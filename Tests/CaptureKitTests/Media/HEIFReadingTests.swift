import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// HEIF photos, which FFmpeg 5.1 cannot open, are probed and turned into thumbnails through
/// libheif: checked against libheif's own `heif-convert` decode and against ffprobe of the
/// thumbnails, through the API and through the `capture` tool.
@Suite("HEIFReading", .enabled(if: HEIFEncoder.isAvailable, "libheif has no HEVC encoder here"))
struct HEIFReadingTests {
    private func heifFile(displayOrientation: EXIFOrientation = .up) throws -> URL {
        let url = MovieFiles.path("photo", "heic")
        try HEIFEncoder.encode(LibraryFixtures.frame(), quality: 80, displayOrientation: displayOrientation, metadata: nil).write(to: url)
        return url
    }

    /// `file` decoded by heif-convert to PNG, then by FFmpeg to packed BGRA.
    private func oracle(_ file: URL) throws -> [UInt8] {
        let png = file.deletingPathExtension().appendingPathExtension("oracle.png")
        defer { try? FileManager.default.removeItem(at: png) }
        try FileFixtures.run("heif-convert", [file.path, png.path])
        return [UInt8](try FileFixtures.run("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "bgra", "-"]))
    }

    /// The picture size ffprobe reads in `file` ("160x120").
    private func probedSize(_ file: URL) throws -> String {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0:s=x", file.path])
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theProbeDescribesAHEIFPhoto() throws {
        let url = try heifFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let info = try MediaFileInfo(contentsOf: url)
        #expect(info.container == "heif")
        let video = try #require(info.videoStream)
        #expect(video.codec == "hevc")
        #expect(video.width == 320 && video.height == 240)
        #expect(video.frameCount == 1)
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo)
        #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
    }

    @Test func aTruncatedHEIFPhotoIsATypedErrorWithLibheifsReason() throws {
        let url = try heifFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count / 3).write(to: url)
        do {
            _ = try MediaFileInfo(contentsOf: url)
            Issue.record("a truncated HEIF file was read")
        } catch {
            #expect(error.code == .corruptFile)
            // libheif's own words, read before its context (which owns them) is freed.
            let reason = error.message.replacingOccurrences(of: "not a HEIF image libheif can read: ", with: "")
            #expect(reason != error.message && !reason.isEmpty, "\(error.message)")
            #expect(reason.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 }, "\(error.message)")
        }
    }

    @Test func aThumbnailOfAHEIFPhotoIsWhatLibheifDecodes() throws {
        let url = try heifFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let generator = AssetImageGenerator(asset: try MediaAsset(url: url))
        let (image, time) = try generator.copyImage(at: MediaTime(value: 3, timescale: 1))
        #expect(time == .zero)
        #expect(image.width == 320 && image.height == 240 && image.pixelFormat == .bgra)
        let expected = try oracle(url)
        let actual = image.packedBytes()
        try #require(actual.count == expected.count)
        let difference = zip(actual, expected).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(actual.count) < 1, "mean difference \(Double(difference) / Double(actual.count))")
        generator.maximumSize = MediaAsset.Size(width: 160, height: 120)
        let small = try generator.copyImage(at: .zero).image
        #expect(small.width == 160 && small.height == 120)
    }

    @Test func aCaptureImageOfATurnedHEIFPhotoIsUprightFromFileAndData() throws {
        let url = try heifFile(displayOrientation: .right)
        defer { try? FileManager.default.removeItem(at: url) }
        let fromFile = try CaptureImage(contentsOf: url)
        #expect(fromFile.size == VideoDimensions(width: 240, height: 320))
        let expected = try oracle(url)
        let actual = fromFile.pixelBuffer.packedBytes()
        try #require(actual.count == expected.count)
        let difference = zip(actual, expected).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(actual.count) < 1, "mean difference \(Double(difference) / Double(actual.count))")
        let data = try Data(contentsOf: url)
        #expect(try CaptureImage(data: data).pixelBuffer.hasSamePixels(as: fromFile.pixelBuffer))
        // Damaged HEIF data is a typed error, not a crash.
        #expect { _ = try CaptureImage(data: data.prefix(data.count / 2)) } throws: { ($0 as? CaptureError)?.code == .corruptFile }
    }

    @Test func aTurnedHEIFPhotoIsProbedAndShownUpright() throws {
        // Stored landscape, marked to be shown turned a quarter (irot): libheif shows it portrait.
        let url = try heifFile(displayOrientation: .right)
        defer { try? FileManager.default.removeItem(at: url) }
        let video = try #require(try MediaFileInfo(contentsOf: url).videoStream)
        #expect(video.width == 240 && video.height == 320)
        let image = try AssetImageGenerator(asset: try MediaAsset(url: url)).copyImage(at: .zero).image
        #expect(image.width == 240 && image.height == 320)
        #expect(image.packedBytes().count == (try oracle(url)).count)
    }

    @Test func aLibraryHEIFPhotoHasAThumbnail() throws {
        // What the web preview's /thumbnail/ID.jpg does for a library item.
        let library = try MediaLibrary(root: LibraryFixtures.root())
        let saved = try library.saveImage(try #require(try LibraryFixtures.heif()), fileExtension: "heic")
        let asset = try #require(try library.asset(id: saved.id))
        let generator = AssetImageGenerator(asset: asset)
        generator.maximumSize = MediaAsset.Size(width: 160, height: 120)
        generator.appliesPreferredTrackTransform = true
        let jpeg = try generator.jpegData(at: .zero).data
        let thumbnail = MovieFiles.path("library-thumbnail", "jpg")
        defer { try? FileManager.default.removeItem(at: thumbnail) }
        try jpeg.write(to: thumbnail)
        #expect(try probedSize(thumbnail) == "160x120")
    }

    @Test func theCaptureToolProbesAndThumbnailsAHEIFPhoto() throws {
        let url = try heifFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let probe = try CaptureTool.run(["probe", url.path, "--json"])
        #expect(probe.status == 0, "\(probe)")
        #expect(probe.output.contains("\"container\" : \"heif\"") || probe.output.contains("\"container\":\"heif\""), "\(probe)")
        let thumbnail = url.deletingPathExtension().appendingPathExtension("thumb.jpg")
        defer { try? FileManager.default.removeItem(at: thumbnail) }
        let made = try CaptureTool.run(["thumbnail", url.path, thumbnail.path])
        #expect(made.status == 0, "\(made)")
        #expect(made.errors.isEmpty, "no FFmpeg or libheif log lines: \(made.errors)")
        #expect(try probedSize(thumbnail) == "100x75")
    }
}
