import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitMedia

/// `CaptureImage`, the `UIImage` stand-in: JPEG and PNG round trips checked by ffprobe and by
/// pixels, EXIF orientation applied on decoding, typed errors for bad data and paths, and a
/// cover from `AssetImageGenerator` written as PNG.
@Suite(.excludable)
struct CaptureImageTests {
    static let width = 160, height = 120

    /// 160x120 blue BGRA with a red 40x30 block in the top-left corner, a known orientation.
    static func corner() throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, pixelFormat: .bgra) { _, bytes, bytesPerRow in
            for y in 0..<height {
                for x in 0..<width {
                    let red = x < 40 && y < 30
                    let offset = y * bytesPerRow + x * 4
                    bytes[offset] = red ? 0 : 255
                    bytes[offset + 1] = 0
                    bytes[offset + 2] = red ? 255 : 0
                    bytes[offset + 3] = 255
                }
            }
        }
    }

    /// The test pattern as BGRA: colour bars and gradients, so a round trip has detail to lose.
    static func pattern() throws -> PixelBuffer {
        let frame = try TestPattern(width: width, height: height, pixelFormat: .nv12).render(frameIndex: 5)
        return try PixelConverter.shared.convert(frame, to: .bgra, width: width, height: height)
    }

    /// The mean absolute difference of the colour channels (alpha left out) of two BGRA pictures.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let x = a.packedBytes(), y = b.packedBytes()
        guard x.count == y.count, !x.isEmpty else { return .infinity }
        var sum = 0, count = 0
        for i in x.indices where i % 4 != 3 {
            sum += abs(Int(x[i]) - Int(y[i]))
            count += 1
        }
        return Double(sum) / Double(count)
    }

    static func isRed(_ image: CaptureImage, _ x: Int, _ y: Int) -> Bool {
        ThumbnailFixtures.isRed(image.pixelBuffer, x, y)
    }

    static func codec(of url: URL) throws -> [String: String] {
        try FileFixtures.ffprobe(url, stream: "v:0", entries: "codec_name,width,height")
    }

    @Test(.tags(.childProcess)) func jpegRoundTripKeepsSizeAndPixels() throws {
        let original = CaptureImage(pixelBuffer: try Self.pattern())
        let jpeg = try #require(original.jpegData(compressionQuality: 0.9))
        let scratch = try PhotoScratch()
        let file = URL(fileURLWithPath: try scratch.write(jpeg, as: "round.jpg"))
        #expect(try Self.codec(of: file) == ["codec_name": "mjpeg", "width": "160", "height": "120"])
        let decoded = try CaptureImage(contentsOf: file)
        #expect(decoded.size == VideoDimensions(width: 160, height: 120))
        #expect(decoded.pixelBuffer.pixelFormat == .bgra)
        #expect(Self.meanDifference(decoded.pixelBuffer, original.pixelBuffer) < 6)
        // The quality spelling is UIKit's: 0 is the smallest file.
        let smallest = try #require(original.jpegData(compressionQuality: 0))
        #expect(smallest.count < jpeg.count)
    }

    @Test(.tags(.childProcess)) func pngRoundTripIsLossless() throws {
        let original = CaptureImage(pixelBuffer: try Self.pattern())
        let png = try #require(original.pngData())
        let scratch = try PhotoScratch()
        let file = URL(fileURLWithPath: try scratch.write(png, as: "round.png"))
        #expect(try Self.codec(of: file) == ["codec_name": "png", "width": "160", "height": "120"])
        let decoded = try CaptureImage(data: png)
        #expect(decoded.size == original.size)
        #expect(Self.meanDifference(decoded.pixelBuffer, original.pixelBuffer) == 0)
        // And what ffmpeg decodes of it is the same picture.
        // libjpeg-turbo and libswscale upsample 4:2:0 chroma differently, which the test
        // pattern's sharp colour edges show (about 27 dB); brightness is the same picture.
        let ffmpeg = try ThumbnailFixtures.ffmpegFrame(file)
        #expect(ffmpeg == decoded.pixelBuffer.packedBytes())
    }

    @Test(.tags(.childProcess)) func aFileFFmpegWroteDecodesAsFFmpegDecodesIt() throws {
        let file = try ThumbnailFixtures.jpeg()
        let image = try CaptureImage(contentsOf: file)
        #expect((image.width, image.height) == (200, 150))
        // libjpeg-turbo and libswscale upsample 4:2:0 chroma differently, which the test
        // pattern's sharp colour edges show (about 27 dB); brightness is the same picture.
        let ffmpeg = try ThumbnailFixtures.ffmpegFrame(file)
        let colour = FileFixtures.psnr(image.pixelBuffer.packedBytes(), ffmpeg)
        let brightness = FileFixtures.psnr(ThumbnailFixtures.luma(image.pixelBuffer.packedBytes()), ThumbnailFixtures.luma(ffmpeg))
        #expect(colour >= 25 && brightness >= 40, "\(colour) dB, luma \(brightness) dB")
    }

    /// EXIF orientation 6 (`.right`): the stored picture is shown turned 90° clockwise, so the
    /// stored top-left block is at the top right, and the picture is portrait.
    @Test func aRotatedEXIFJPEGDecodesUpright() throws {
        var metadata = EXIFMetadata()
        metadata.orientation = .right
        let jpeg = try JPEGEncoder.encode(try Self.corner(), quality: 95, metadata: metadata)
        let image = try CaptureImage(data: jpeg)
        #expect(image.size == VideoDimensions(width: 120, height: 160))
        #expect(Self.isRed(image, 110, 10))
        #expect(!Self.isRed(image, 10, 10))
        #expect(!Self.isRed(image, 110, 150))
        // Without the tag the same pixels stay as stored.
        let plain = try CaptureImage(data: try JPEGEncoder.encode(try Self.corner(), quality: 95, metadata: nil))
        #expect(plain.size == VideoDimensions(width: 160, height: 120))
        #expect(Self.isRed(plain, 10, 10))
    }

    @Test func aStillsSampleBufferGivesItsJPEGUpright() throws {
        var metadata = EXIFMetadata()
        metadata.orientation = .left
        let jpeg = try JPEGEncoder.encode(try Self.corner(), quality: 95, metadata: metadata)
        let storage = try MediaStorage.allocate(byteCount: jpeg.count)
        jpeg.copyBytes(to: storage.bytes.assumingMemoryBound(to: UInt8.self), count: jpeg.count)
        let sample = SampleBuffer(media: .video(try Self.corner()), presentationTimeStamp: .zero, duration: .zero, sequenceNumber: 0,
                                  compressedFrame: CompressedFrame(codec: .jpeg, storage: storage, byteCount: jpeg.count))
        let image = try CaptureImage(sampleBuffer: sample)
        // `.left`: turned 90° counter-clockwise, the stored top-left block lands bottom left.
        #expect(image.size == VideoDimensions(width: 120, height: 160))
        #expect(Self.isRed(image, 10, 150))
        #expect(!Self.isRed(image, 10, 10))
        // A sample without a JPEG is its frame as it is.
        let frame = try Self.corner()
        let plain = try CaptureImage(sampleBuffer: SampleBuffer(media: .video(frame), presentationTimeStamp: .zero, duration: .zero, sequenceNumber: 0))
        #expect(plain.pixelBuffer === frame)
    }

    @Test func damagedDataGivesTypedErrors() throws {
        let jpeg = try #require(CaptureImage(pixelBuffer: try Self.pattern()).jpegData(compressionQuality: 0.8))
        let png = try #require(CaptureImage(pixelBuffer: try Self.pattern()).pngData())
        let cases: [(Data, CaptureError.Code)] = [
            (jpeg.prefix(jpeg.count / 2), .corruptFile),
            (Data([0xFF, 0xD8, 0xFF]) + Data(repeating: 0x55, count: 200), .corruptFile),
            (png.prefix(60), .corruptFile),
            (Data("not a picture at all".utf8), .unsupportedFile),
            (Data(), .unsupportedFile),
        ]
        for (data, code) in cases {
            do {
                _ = try CaptureImage(data: data)
                Issue.record("\(data.count) bytes decoded")
            } catch {
                #expect(error.code == code, "\(data.count) bytes: \(error)")
            }
        }
        #expect { _ = try CaptureImage(contentsOf: URL(fileURLWithPath: "/nonexistent/picture.jpg")) } throws: {
            ($0 as? CaptureError)?.code == .fileError && ($0 as? CaptureError)?.errno == ENOENT
        }
    }

    @Test func writingNeverOverwritesUnlessAsked() throws {
        let scratch = try PhotoScratch()
        let image = CaptureImage(pixelBuffer: try Self.corner())
        let url = URL(fileURLWithPath: "\(scratch.path)/shot.png")
        try image.write(to: url)
        let first = try Data(contentsOf: url)
        #expect(first.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let other = CaptureImage(pixelBuffer: try Self.pattern())
        #expect { try other.write(to: url) } throws: { ($0 as? CaptureError)?.code == .fileError && ($0 as? CaptureError)?.errno == EEXIST }
        #expect(try Data(contentsOf: url) == first, "the existing file is kept")
        try other.write(to: url, overwrite: true)
        #expect(try CaptureImage(contentsOf: url).size == other.size)
        #expect(try Data(contentsOf: url) != first)
        // The extension picks the format; an unknown one and an unwritable folder are refused.
        let jpegURL = URL(fileURLWithPath: "\(scratch.path)/shot.JPEG")
        try image.write(to: jpegURL, compressionQuality: 0.5)
        #expect(try Data(contentsOf: jpegURL).starts(with: [0xFF, 0xD8, 0xFF]))
        #expect { try image.write(to: URL(fileURLWithPath: "\(scratch.path)/shot.bmp")) } throws: { ($0 as? CaptureError)?.code == .invalidArgument }
        #expect(!FileManager.default.fileExists(atPath: "\(scratch.path)/shot.bmp"))
        #expect { try image.write(to: URL(fileURLWithPath: "\(scratch.path)/missing/shot.png")) } throws: {
            ($0 as? CaptureError)?.code == .fileError && ($0 as? CaptureError)?.errno == ENOENT
        }
    }

    @Test(.tags(.childProcess)) func aCoverFromTheGeneratorWritesAsPNG() throws {
        let generator = AssetImageGenerator(asset: try MediaAsset(url: try ThumbnailFixtures.gop()))
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        var actualTime = MediaTime.invalid
        let cover = try generator.copyCGImage(at: MediaTime(value: 1, timescale: 1), actualTime: &actualTime)
        #expect(actualTime == MediaTime(value: 1, timescale: 1), "the keyframe at 1 s")
        #expect(cover.size == VideoDimensions(width: 100, height: 75))
        let scratch = try PhotoScratch()
        let url = URL(fileURLWithPath: "\(scratch.path)/cover.png")
        try cover.write(to: url)
        #expect(try Self.codec(of: url) == ["codec_name": "png", "width": "100", "height": "75"])
        #expect(FileFixtures.psnr(try CaptureImage(contentsOf: url).pixelBuffer.packedBytes(), cover.pixelBuffer.packedBytes()) == .infinity)
    }
}
