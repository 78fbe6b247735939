@testable import CaptureKit
import Synchronization

/// A scripted grey scene for motion tests: a textured background (a checker over a gradient,
/// so edges are everywhere), sensor noise from a seeded generator, an overall brightness that
/// may drift, and rectangles ("objects") pasted in given frames. Deterministic: the same
/// frame index always gives the same picture.
struct MotionScene {
    struct Object {
        var x: Int, y: Int, width: Int, height: Int
        var level: UInt8
        var frames: Range<Int>
    }

    let width: Int
    let height: Int
    /// Standard deviation of the noise added to every pixel, in grey levels.
    var noise: Double = 2
    /// One pixel in this many is a hot or dead pixel (0 or 255) in a frame; 0 for none.
    var speckEvery = 0
    /// Brightness added at frame `i`: `brightness(i)` grey levels.
    var brightness: @Sendable (Int) -> Double = { _ in 0 }
    var objects: [Object] = []

    private let base: [UInt8]
    /// A few noise fields, used in turn (a prime count, so no short cycle lines up with others).
    private let noiseFields: [[Int8]]
    private let lit = LitPictures()

    init(width: Int, height: Int, noise: Double = 2, seed: UInt64 = 1) {
        self.width = width
        self.height = height
        self.noise = noise
        base = (0..<(width * height)).map { index in
            let x = index % width, y = index / width
            return UInt8(50 + (x * 3 + y * 2) % 60 + ((x / 8 + y / 6) % 2) * 60)
        }
        var generator = SeededGenerator(seed: seed)
        noiseFields = (0..<37).map { _ in
            (0..<(width * height)).map { _ in Int8(clamping: Int((generator.gaussian() * noise).rounded())) }
        }
    }

    /// Frame `index` of the scene, row-major.
    func frame(_ index: Int) -> [UInt8] {
        let fieldIndex = index % noiseFields.count
        let field = noiseFields[fieldIndex]
        let shift = Int(brightness(index).rounded())
        // Ten minutes of frames have a few thousand (noise field, brightness) pairs: each is
        // made once (a debug build makes pixels slowly).
        var pixels = lit.pictures.withLock { $0[fieldIndex * 1024 + shift + 512] } ?? []
        if pixels.isEmpty {
            pixels = [UInt8](repeating: 0, count: width * height)
            pixels.withUnsafeMutableBufferPointer { out in
                base.withUnsafeBufferPointer { base in
                    field.withUnsafeBufferPointer { field in
                        for i in 0..<out.count { out[i] = UInt8(clamping: Int(base[i]) + shift + Int(field[i])) }
                    }
                }
            }
            lit.pictures.withLock { [pixels] in $0[fieldIndex * 1024 + shift + 512] = pixels }
        }
        for object in objects where object.frames.contains(index) {
            for y in object.y..<(object.y + object.height) {
                for x in object.x..<(object.x + object.width) {
                    pixels[y * width + x] = UInt8(clamping: Int(object.level) + Int(field[y * width + x]))
                }
            }
        }
        if speckEvery > 0 {
            var generator = SeededGenerator(seed: UInt64(index) &* 2_654_435_761)
            for _ in 0..<(width * height / speckEvery) {
                pixels[Int(generator.next() % UInt64(width * height))] = generator.next() % 2 == 0 ? 0 : 255
            }
        }
        return pixels
    }

    /// Frame `index` as an NV12 or YUYV buffer (grey chroma).
    func pixelBuffer(_ index: Int, format: PixelFormat = .nv12) throws -> PixelBuffer {
        let pixels = frame(index)
        return try PixelBuffer(width: width, height: height, pixelFormat: format) { plane, bytes, stride in
            let out = bytes.bindMemory(to: UInt8.self)
            switch (format, plane) {
            case (.yuyv422, _):
                for y in 0..<height {
                    for x in 0..<width {
                        out[y * stride + 2 * x] = pixels[y * width + x]
                        out[y * stride + 2 * x + 1] = 128
                    }
                }
            case (_, 0):
                for y in 0..<height { for x in 0..<width { out[y * stride + x] = pixels[y * width + x] } }
            default:
                bytes.initializeMemory(as: UInt8.self, repeating: 128)
            }
        }
    }
}

/// The pictures a scene has made, by noise field and brightness.
private final class LitPictures: Sendable {
    let pictures = Mutex<[Int: [UInt8]]>([:])
}
