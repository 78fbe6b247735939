import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitMedia

/// What the scanning and motion outputs read as a frame's luma: its Y samples as the camera
/// sent them, whatever the layout carrying them.
@Suite(.excludable)
struct LumaFrameTests {
    static let width = 66, height = 38

    static func sample(_ frame: PixelBuffer) -> SampleBuffer {
        SampleBuffer(media: .video(frame), presentationTimeStamp: .zero, duration: MediaTime(value: 1, timescale: 30), sequenceNumber: 0)
    }

    /// Y at (x, y) of the test frames: every value 16...235 occurs, none twice in a row.
    static func y(_ x: Int, _ y: Int) -> UInt8 { UInt8(16 + (x * 7 + y * 13) % 220) }

    @Test(arguments: [PixelFormat.yuyv422, .uyvy422])
    func packedLumaIsTheCamerasOwnSamples(_ format: PixelFormat) throws {
        let frame = try PixelBuffer(width: Self.width, height: Self.height, pixelFormat: format) { _, bytes, stride in
            for row in 0..<Self.height {
                for x in 0..<Self.width {
                    let pair = row * stride + x / 2 * 4
                    bytes[pair + (format == .yuyv422 ? x % 2 * 2 : 1 + x % 2 * 2)] = Self.y(x, row)
                    bytes[pair + (format == .yuyv422 ? 1 : 0)] = 90  // U
                    bytes[pair + (format == .yuyv422 ? 3 : 2)] = 200  // V
                }
            }
        }
        let luma = try LumaFrame.of(Self.sample(frame))
        #expect(luma.pixelFormat == .gray8 && luma.width == Self.width && luma.height == Self.height)
        let wrong = luma.withUnsafeBytes(ofPlane: 0) { plane in
            (0..<Self.height).flatMap { row in (0..<Self.width).map { (row, $0) } }
                .filter { row, x in plane[row * luma.bytesPerRow(ofPlane: 0) + x] != Self.y(x, row) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) luma samples differ from the frame's, first at \(String(describing: wrong.first))")
    }

    @Test func planarFramesAreReadInPlaceAndRGBIsConvertedToGrey() throws {
        let nv12 = try PixelBuffer(width: Self.width, height: Self.height, pixelFormat: .nv12) { _, bytes, _ in
            bytes.initializeMemory(as: UInt8.self, repeating: 128)
        }
        #expect(try LumaFrame.of(Self.sample(nv12)) === nv12)
        let white = try PixelBuffer(width: Self.width, height: Self.height, pixelFormat: .bgra) { _, bytes, _ in
            bytes.initializeMemory(as: UInt8.self, repeating: 255)
        }
        let grey = try LumaFrame.of(Self.sample(white))
        #expect(grey.pixelFormat == .gray8)
        #expect(grey.withUnsafeBytes(ofPlane: 0) { $0[0] } == 255)
    }
}
