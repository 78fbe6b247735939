import Foundation
import Testing
@testable import CaptureKit

/// Raw Bayer frames packed as MIPI CSI-2 carries them (`pBAA` … `pRCC`, what the raw modes of
/// embedded boards' sensors deliver), from a scripted node: listed under their own FourCC as
/// the 10- or 12-bit format, every sample unpacked exactly (widths that end in a partial group,
/// rows padded by the driver), and a raw photo of them a DNG whose samples dcraw reads back as
/// the sensor's.
@Suite(.serialized, .tags(.childProcess))
struct V4L2PackedBayerTests {
    typealias Record = V4L2Fixtures.Record

    /// `rows` of samples packed as CSI-2 does, each row `bytesPerRow` long (zero padded). The
    /// packing is written from the format's definition here, not with CaptureKit's code.
    static func pack(_ rows: [[Int]], bits: Int, bytesPerRow: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for row in rows {
            var packed: [UInt8] = []
            let group = bits == 10 ? 4 : 2
            for start in stride(from: 0, to: row.count, by: group) {
                let samples = (0..<group).map { start + $0 < row.count ? row[start + $0] : 0 }
                packed += samples.map { UInt8($0 >> (bits - 8)) }
                var low = 0
                for (index, sample) in samples.enumerated() { low |= (sample & ((1 << (bits - 8)) - 1)) << (index * (bits - 8)) }
                packed.append(UInt8(low))
            }
            bytes += packed + [UInt8](repeating: 0, count: bytesPerRow - packed.count)
        }
        return bytes
    }

    /// A scripted camera offering `fourCC` at one size, streaming `frames`.
    static func script(_ fourCC: String, width: Int, height: Int, frames: [[UInt8]], bytesPerLine: Int = 0,
                       pace: Int64 = 0) throws -> ScriptedV4L2Device.Script {
        var script = ScriptedV4L2Device.Script()
        let code = try #require(V4L2FourCC(string: fourCC))
        script.formats = [ScriptedV4L2Device.FormatEntry(
            description: V4L2FormatDescription(fourCC: code, description: "\(fourCC) packed Bayer", isCompressed: false),
            sizes: [.discrete(width: width, height: height)], intervals: [.discrete(V4L2Fixtures.fraction(1, 30))])]
        script.bytesPerLine = bytesPerLine
        script.frames = frames.enumerated().map { ScriptedV4L2Device.Frame(bytes: $1, sequence: UInt32($0)) }
        script.paceNanoseconds = pace
        return script
    }

    @Test(arguments: [("pBAA", PixelFormat.bayerBGGR10, 16, 0), ("pgAA", .bayerGRBG10, 18, 32), ("pRCC", .bayerRGGB12, 17, 0),
                      ("pGCC", .bayerGBRG12, 20, 40)])
    func packedFramesArriveUnpacked(_ fourCC: String, _ format: PixelFormat, _ width: Int, _ bytesPerLine: Int) async throws {
        let height = 6, bits = format.bayerBitDepth!
        var generator = SeededGenerator(seed: UInt64(width))
        let frames = (0..<3).map { _ in (0..<height).map { _ in (0..<width).map { _ in Int.random(in: 0..<(1 << bits), using: &generator) } } }
        let stride = max(bytesPerLine, bits == 10 ? (width + 3) / 4 * 5 : (width + 1) / 2 * 3)
        let (backend, _) = try V4L2Fixtures.backend(try Self.script(fourCC, width: width, height: height,
                                                                    frames: frames.map { Self.pack($0, bits: bits, bytesPerRow: stride) },
                                                                    bytesPerLine: bytesPerLine))
        let listed = try #require(backend.formats.first)
        #expect(listed.pixelFormat == format && listed.fourCC == fourCC && listed.width == width)

        let recorder = Recorder<Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: V4L2Fixtures.sink(recorder))
        let delivered = await recorder.wait(timeout: .seconds(10)) { $0.compactMap(\.sample).count == frames.count }
        stream.stop()
        #expect(delivered)
        #expect(recorder.items.map(\.dropped).reduce(0, +) == 0)
        for (sample, expected) in zip(recorder.items.compactMap(\.sample), frames) {
            let pixels = try #require(sample.pixelBuffer)
            #expect(pixels.pixelFormat == format && pixels.width == width && pixels.height == height)
            var wrong: [String] = []
            pixels.withUnsafeBytes(ofPlane: 0) { bytes in
                for y in 0..<height {
                    for x in 0..<width {
                        let offset = y * pixels.bytesPerRow(ofPlane: 0) + 2 * x
                        let value = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
                        if value != expected[y][x] { wrong.append("(\(x),\(y)) \(value) not \(expected[y][x])") }
                    }
                }
            }
            #expect(wrong.isEmpty, "frame \(sample.sequenceNumber): \(wrong.count) samples wrong: \(wrong.prefix(6))")
        }
    }

    @Test(arguments: [("pRAA", PixelFormat.bayerRGGB10), ("pBCC", .bayerBGGR12)])
    func rawPhotoOfAPackedCameraHoldsTheSensorsSamples(_ fourCC: String, _ format: PixelFormat) async throws {
        try #require(PhotoTools.isInstalled("dcraw"), "dcraw (scripts/install-deps.sh)")
        let width = 320, height = 240, bits = format.bayerBitDepth!
        let scene = (0..<height).map { y in (0..<width).map { x in BayerScene.sample(x: x, y: y, width: width, height: height, format: format) } }
        let packed = Self.pack(scene, bits: bits, bytesPerRow: bits == 10 ? width / 4 * 5 : width / 2 * 3)
        let (backend, _) = try V4L2Fixtures.backend(try Self.script(fourCC, width: width, height: height,
                                                                    frames: Array(repeating: packed, count: 300), pace: 33_333_333))
        let camera = CaptureDevice(backend: backend)
        let output = CapturePhotoOutput()
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.addOutput(output)
        try session.commitConfiguration()
        try await session.start()
        defer { try? session.stopRunning() }
        #expect(output.availableRawPhotoPixelFormatTypes == [format])

        let photo = try await output.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: format))
        #expect(photo.isRawPhoto && photo.fileType == .dng)
        let scratch = try PhotoScratch()
        let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "packed.dng")
        let stored = try NetpbmImage(PhotoTools.run("dcraw", ["-D", "-4", "-c", file], in: scratch))
        #expect(stored.width == width && stored.height == height)
        var wrong: [String] = []
        for y in Swift.stride(from: 0, to: height, by: 7) {
            for x in 0..<width where stored.pixel(x: x, y: y)[0] != scene[y][x] { wrong.append("(\(x),\(y)) \(stored.pixel(x: x, y: y)[0])") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) samples differ from the sensor's: \(wrong.prefix(6))")
        let tags = try PhotoTools.exif(file, in: scratch)
        #expect(tags["WhiteLevel"] as? Int == (1 << bits) - 1)
    }
}
