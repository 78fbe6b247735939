import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// HEIF photos written by CaptureKit's HEIF encoder open as `MediaAsset`s (FFmpeg 5.1 cannot
/// open HEIF; libheif reads them, chosen by the file's `ftyp` brands, not its name): photo,
/// size, transform, one `hevc` track and the EXIF capture date, each checked against what
/// heif-info, exiftool and ffprobe (of the thumbnail) say about the same files; damaged files
/// are typed errors.
@Suite("MediaAssetHEIF", .enabled(if: HEIFEncoder.isAvailable, "libheif has no HEVC encoder here"), .excludable)
struct MediaAssetHEIFTests {
    /// 14 Nov 2023 22:13:20.250 UTC, written as 03:43:20.250 at +05:30.
    private static let captured = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// A 320x240 HEIF from the test pattern, shown turned by `displayOrientation`, with an EXIF
    /// block dated ``captured`` unless `dated` is false, saved under a name without a HEIF
    /// extension: the brands, not the name, make it a HEIF photo.
    private func heifFile(_ scratch: PhotoScratch, displayOrientation: EXIFOrientation = .up, dated: Bool = true) throws -> URL {
        var metadata = EXIFMetadata()
        metadata.dateTimeOriginal = Self.captured
        metadata.timeZoneOffset = 5 * 3600 + 30 * 60
        metadata.pixelWidth = 320
        metadata.pixelHeight = 240
        metadata.orientation = displayOrientation
        let data = try HEIFEncoder.encode(LibraryFixtures.frame(), quality: 70, displayOrientation: displayOrientation,
                                          metadata: dated ? metadata : nil)
        return URL(fileURLWithPath: try scratch.write(data, as: "photo-\(UUID().uuidString.prefix(6)).bin"))
    }

    /// Sets the file's modification time to `date`.
    private func touch(_ url: URL, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    }

    /// The `image: WxH` line heif-info prints for the primary image.
    private func heifInfoSize(_ url: URL, _ scratch: PhotoScratch) throws -> String? {
        let text = String(decoding: try PhotoTools.run("heif-info", [url.path], in: scratch), as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix("image: ") }
            .flatMap { $0.dropFirst("image: ".count).split(separator: " ").first.map(String.init) }
    }

    @Test(.tags(.childProcess)) func aHEIFPhotoOpensAsAPhotoAssetWhateverItsName() throws {
        let scratch = try PhotoScratch()
        let url = try heifFile(scratch)
        // The file's own date says something else: the EXIF date wins.
        try touch(url, Date(timeIntervalSince1970: 1_000_000_000))
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo)
        #expect(asset.id == url.standardizedFileURL.path)
        #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(asset.presentationSize == MediaAsset.Size(width: 320, height: 240))
        #expect(asset.preferredTransform == .identity)
        #expect(asset.duration == .zero)
        #expect(asset.tracks.count == 1)
        let track = try #require(asset.tracks.first)
        #expect(track.mediaType == .video && track.codec == "hevc")
        #expect(track.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(abs(asset.creationDate.timeIntervalSince(Self.captured)) < 0.0005,
                "creation date \(asset.creationDate.timeIntervalSince1970), EXIF says \(Self.captured.timeIntervalSince1970)")

        // libheif's own tool and exiftool read the same file alike.
        #expect(try heifInfoSize(url, scratch) == "320x240")
        let exif = try PhotoTools.exif(url.path, in: scratch)
        #expect(exif["ImageSize"] as? String == "320 240", "\(exif)")
        #expect(exif["Rotation"] as? Int ?? 0 == 0, "\(exif)")
        #expect(exif["MIMEType"] as? String == "image/heic", "\(exif)")
        #expect(exif["DateTimeOriginal"] as? String == "2023:11:15 03:43:20", "\(exif)")
        #expect(exif["OffsetTimeOriginal"] as? String == "+05:30", "\(exif)")
    }

    @Test(.tags(.childProcess)) func aThumbnailOfAHEIFAssetIs100PixelsWide() throws {
        let scratch = try PhotoScratch()
        let asset = try MediaAsset(url: try heifFile(scratch))
        let generator = AssetImageGenerator(asset: asset)
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        let (image, time) = try generator.copyImage(at: .zero)
        #expect(time == .zero)
        #expect((image.width, image.height) == (100, 75), "\(image.width)x\(image.height)")
        let cover = try generator.copyCGImage(at: MediaTime(value: 1, timescale: 1), actualTime: nil)
        #expect(cover.size == VideoDimensions(width: 100, height: 75))
        // The encoded thumbnail, as ffprobe reads it.
        let jpeg = try scratch.write(try generator.jpegData(at: .zero).data, as: "thumbnail.jpg")
        let probed = try PhotoTools.probe(jpeg, in: scratch)
        #expect((probed.width, probed.height) == (100, 75))
    }

    @Test(.tags(.childProcess)) func aTurnedHEIFPhotoIsUprightAsLibheifShowsIt() throws {
        let scratch = try PhotoScratch()
        // Stored 320x240 (ispe), marked to be shown a quarter turn round (irot): 240x320.
        let url = try heifFile(scratch, displayOrientation: .right)
        let asset = try MediaAsset(url: url)
        #expect(asset.naturalSize == MediaAsset.Size(width: 240, height: 320))
        #expect(asset.preferredTransform == .identity, "libheif turns the picture as it decodes")
        #expect(asset.presentationSize == MediaAsset.Size(width: 240, height: 320))
        // libheif's tools show it portrait, and exiftool finds the turn (irot) in the file.
        #expect(try heifInfoSize(url, scratch) == "240x320")
        let decoded = try PhotoTools.decodeHEIF(url.path, in: scratch)
        #expect((decoded.width, decoded.height) == (240, 320))
        let exif = try PhotoTools.exif(url.path, in: scratch)
        #expect(exif["ImageSize"] as? String == "240 320", "\(exif)")
        #expect([90, 270].contains(exif["Rotation"] as? Int ?? 0), "\(exif)")
        for applies in [false, true] {
            let generator = AssetImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = applies
            generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
            let image = try generator.copyImage(at: .zero).image
            #expect((image.width, image.height) == (100, 133), "appliesPreferredTrackTransform \(applies): \(image.width)x\(image.height)")
        }
    }

    @Test func theBrandsNotTheNameMakeAHEIFPhoto() throws {
        let scratch = try PhotoScratch()
        var data = try Data(contentsOf: try heifFile(scratch))
        let box = try #require(FileTypeBox(data))
        #expect(box.majorBrand == "heic" && box.compatibleBrands.contains("mif1"))
        // `mif1` as the major brand (any image file; libheif's own check says only "maybe"),
        // under a JPEG's name.
        data.replaceSubrange(8..<12, with: Array("mif1".utf8))
        #expect(FileTypeBox(data)?.isHEIFImage == true)
        let url = URL(fileURLWithPath: try scratch.write(data, as: "not-a-jpeg.jpg"))
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo && asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(asset.tracks.map(\.codec) == ["hevc"])
        // Not an ftyp box, or one without a HEIF brand: not a HEIF photo.
        #expect(FileTypeBox(Data("not an ftyp box at all".utf8)) == nil)
        #expect(FileTypeBox(Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)))?.isHEIFImage == false)
        #expect(FileTypeBox(data.prefix(12)) == nil, "a box too short for its minor version")
    }

    @Test func aHEIFPhotoWithoutEXIFIsDatedByItsFile() throws {
        let scratch = try PhotoScratch()
        let url = try heifFile(scratch, dated: false)
        let written = Date(timeIntervalSince1970: 1_600_000_000)
        try touch(url, written)
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo && asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
        #expect(abs(asset.creationDate.timeIntervalSince(written)) < 0.001)
    }

    @Test func aTruncatedHEIFIsATypedError() throws {
        let scratch = try PhotoScratch()
        let whole = try Data(contentsOf: try heifFile(scratch))
        // Inside the ftyp box, inside the meta box, inside the picture's data, one byte short.
        for length in [20, 100, whole.count / 2, whole.count - 1] {
            let url = URL(fileURLWithPath: try scratch.write(whole.prefix(length), as: "truncated-\(length).heic"))
            do throws(CaptureError) {
                let asset = try MediaAsset(url: url)
                // A file whose boxes are all there but whose picture is cut reads; its picture does not.
                let generator = AssetImageGenerator(asset: asset)
                do throws(CaptureError) {
                    _ = try generator.copyImage(at: .zero)
                    Issue.record("\(length) of \(whole.count) bytes decoded")
                } catch {
                    #expect(error.code == .corruptFile, "\(length) of \(whole.count) bytes: \(error)")
                }
            } catch {
                #expect(error.code == .corruptFile || error.code == .unsupportedFile, "\(length) of \(whole.count) bytes: \(error)")
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "one line: \(error.message)")
            }
        }
    }
}
