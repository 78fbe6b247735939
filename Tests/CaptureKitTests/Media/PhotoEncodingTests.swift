import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// The photo encoders on their own, from every layout a camera can deliver.
@Suite(.excludable)
struct PhotoEncodingTests {
    @Test func badQualityIsRefused() throws {
        let frame = try TestPattern(width: 64, height: 64, pixelFormat: .nv12).render(frameIndex: 0)
        #expect(throws: CaptureError.self) { _ = try JPEGEncoder.encode(frame, quality: 0, metadata: nil) }
        #expect(throws: CaptureError.self) { _ = try HEIFEncoder.encode(frame, quality: 101, metadata: nil) }
    }

    /// Decoded by FFmpeg (JPEG, PNG) and compared with the frame they were given.
    @Suite(.tags(.childProcess))
    struct DecodedByFFmpeg {
        /// Not a multiple of 16 wide, so the SIMD kernels' scalar tails run too.
        static let width = 650, height = 482

        @Test(arguments: [PixelFormat.yuyv422, .uyvy422, .nv12, .nv21, .yuv420p, .yuv422p, .gray8])
        func jpegFromEveryCameraLayoutIsTheFrame(_ format: PixelFormat) throws {
            let frame = try TestPattern(width: Self.width, height: Self.height, pixelFormat: format).render(frameIndex: 11)
            let jpeg = try JPEGEncoder.encode(frame, quality: 90, metadata: nil)
            let scratch = try PhotoScratch()
            let file = try scratch.write(jpeg, as: "\(format).jpg")
            let probe = try PhotoTools.probe(file, in: scratch)
            let expectedLayout: [PixelFormat: String] = [.yuyv422: "yuvj422p", .uyvy422: "yuvj422p", .yuv422p: "yuvj422p",
                                                         .nv12: "yuvj420p", .nv21: "yuvj420p", .yuv420p: "yuvj420p", .gray8: "gray"]
            #expect(probe.pixelFormat == expectedLayout[format], "\(format) -> \(probe.pixelFormat)")
            if format == .gray8 {
                // libswscale takes grey as full range, so compare in JPEG's own terms: the decoded
                // grey against the frame's samples expanded by the definition (Y − 16) × 255 / 219.
                let raw = "\(scratch.path)/gray.raw"
                try PhotoTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", raw], in: scratch)
                let decoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
                let expected = frame.packedBytes().map { UInt8(max(0, min(255, (Double($0) - 16) * 255 / 219)).rounded()) }
                let match = psnr(decoded, expected)
                #expect(match >= 35, "gray8: \(match) dB")
                return
            }
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            #expect(decoded.width == Self.width && decoded.height == Self.height)
            let expected = try PixelConverter.shared.convert(frame, to: .yuv420p, width: Self.width, height: Self.height).packedBytes()
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "\(format): \(match) dB")
        }

        @Test(arguments: [PixelFormat.rgb24, .bgra])
        func jpegFromRGBIsTheFrame(_ format: PixelFormat) throws {
            let yuv = try TestPattern(width: Self.width, height: Self.height, pixelFormat: .nv12).render(frameIndex: 4)
            let rgb = try PixelConverter.shared.convert(yuv, to: format, width: Self.width, height: Self.height)
            for orientation in [EXIFOrientation.up, .left] {
                let scratch = try PhotoScratch()
                let decoded = try PhotoTools.decodeYUV420(try scratch.write(try JPEGEncoder.encode(rgb, quality: 90, applying: orientation, metadata: nil),
                                                                            as: "rgb.jpg"), in: scratch)
                let source = lumaPlane(try PixelConverter.shared.convert(yuv, to: .yuv420p, width: Self.width, height: Self.height).packedBytes(),
                                       width: Self.width, height: Self.height)
                let expected = applyEXIFOrientation(orientation.rawValue, to: source, width: Self.width, height: Self.height)
                let match = psnr(lumaPlane(decoded.bytes, width: decoded.width, height: decoded.height), expected)
                #expect(match >= 35, "\(format) \(orientation): \(match) dB")
            }
        }

        @Test func limitedRangeBecomesFullRange() throws {
            // Left half studio black (16), right half studio white (235): JFIF must say 0 and 255.
            let frame = try PixelBuffer(width: 64, height: 64, pixelFormat: .gray8)
            frame.withUnsafeMutableBytes(ofPlane: 0) { raw in
                for y in 0..<64 { for x in 0..<64 { raw[y * frame.bytesPerRow(ofPlane: 0) + x] = x < 32 ? 16 : 235 } }
            }
            let scratch = try PhotoScratch()
            let file = try scratch.write(try JPEGEncoder.encode(frame, quality: 95, metadata: nil), as: "range.jpg")
            let raw = "\(scratch.path)/range.gray"
            try PhotoTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", raw], in: scratch)
            let samples = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            #expect(samples.count == 64 * 64)
            #expect(Int(samples[32 * 64 + 8]) <= 2, "black: \(samples[32 * 64 + 8])")
            #expect(Int(samples[32 * 64 + 56]) >= 253, "white: \(samples[32 * 64 + 56])")
        }

        @Test func turned422BecomesA440JPEG() throws {
            let frame = try TestPattern(width: Self.width, height: Self.height, pixelFormat: .yuyv422).render(frameIndex: 2)
            let scratch = try PhotoScratch()
            let file = try scratch.write(try JPEGEncoder.encode(frame, quality: 90, applying: .right, metadata: nil), as: "turned.jpg")
            #expect(try PhotoTools.probe(file, in: scratch).pixelFormat == "yuvj440p")
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            #expect(decoded.width == Self.height && decoded.height == Self.width)
            let source = lumaPlane(try PixelConverter.shared.convert(frame, to: .yuv420p, width: Self.width, height: Self.height).packedBytes(),
                                   width: Self.width, height: Self.height)
            let match = psnr(lumaPlane(decoded.bytes, width: decoded.width, height: decoded.height),
                             applyEXIFOrientation(6, to: source, width: Self.width, height: Self.height))
            #expect(match >= 35, "\(match) dB")
        }

        @Test func pngFromYUYVIsTheFrame() throws {
            let frame = try TestPattern(width: Self.width, height: Self.height, pixelFormat: .yuyv422).render(frameIndex: 5)
            let scratch = try PhotoScratch()
            let file = try scratch.write(try PNGEncoder.encode(frame, applying: .downMirrored, metadata: nil), as: "f.png")
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            let source = lumaPlane(try PixelConverter.shared.convert(frame, to: .yuv420p, width: Self.width, height: Self.height).packedBytes(),
                                   width: Self.width, height: Self.height)
            let match = psnr(lumaPlane(decoded.bytes, width: decoded.width, height: decoded.height),
                             applyEXIFOrientation(4, to: source, width: Self.width, height: Self.height))
            #expect(match >= 35, "\(match) dB")
        }
    }
}
