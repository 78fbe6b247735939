import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// MJPEG through v4l2loopback: the harness's producer serves one JPEG (SMPTE bars made by
    /// ffmpeg) on every frame; what CaptureKit decodes must match ffmpeg's decoding of that file.
    @Suite struct MJPEGLoopbackTests {
        @Test func mjpegFramesDecodeToTheProducersPicture() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.loopbackNode)
            let format = try VMCapture.format(device, fourCC: "MJPG", width: 640, height: 480)
            // The producer owns the format (S_FMT is refused while it streams): select it
            // without changing anything.
            try VMCapture.configure(device, format)
            let (recorder, _) = try await VMCapture.frames(device, count: 3, settings: VideoTarget(pixelFormat: .rgb24))

            let buffer = try #require(recorder.samples.items.last?.sample.pixelBuffer)
            #expect(buffer.pixelFormat == .rgb24 && buffer.width == 640 && buffer.height == 480)
            let decoded = try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", VMEnvironment.mjpegReference,
                                                         "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            let reference = PixelSampler(raw: [UInt8](decoded), pixelFormat: .rgb24, width: 640, height: 480)
            let frame = PixelSampler(buffer)
            // Decoders may differ in IDCT rounding and chroma upsampling, which shows at edges:
            // compare where the reference is flat (its 5x5 neighbourhood within 4 levels).
            var compared = 0
            var mismatches: [String] = []
            for y in stride(from: 8, to: 472, by: 16) {
                for x in stride(from: 8, to: 632, by: 16) {
                    guard let want = reference.rgb(x: x, y: y), Self.isFlat(reference, x: x, y: y) else { continue }
                    compared += 1
                    guard let got = frame.rgb(x: x, y: y) else { mismatches.append("(\(x),\(y)) unreadable"); continue }
                    if max(abs(got.0 - want.0), abs(got.1 - want.1), abs(got.2 - want.2)) > 10 {
                        mismatches.append("(\(x),\(y)) \(got) vs ffmpeg \(want)")
                    }
                }
            }
            #expect(compared > 400, "flat sample points: \(compared)")
            #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) sampled pixels differ: \(mismatches.prefix(8))")
        }

        private static func isFlat(_ picture: PixelSampler, x: Int, y: Int) -> Bool {
            guard let centre = picture.rgb(x: x, y: y) else { return false }
            for dy in -2...2 {
                for dx in -2...2 {
                    guard let rgb = picture.rgb(x: x + dx, y: y + dy),
                          max(abs(rgb.0 - centre.0), abs(rgb.1 - centre.1), abs(rgb.2 - centre.2)) <= 4 else { return false }
                }
            }
            return true
        }
    }
}
