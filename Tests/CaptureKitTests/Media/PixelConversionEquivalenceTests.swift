import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitMedia

/// Every conversion `PixelConverter` makes with libyuv against libswscale's for the same
/// frame: repacking pairs and halving sample for sample (within ±1), colour-matrix pairs
/// against the BT.601 formulas (limited-range YUV, full-range RGB), where libyuv must be as
/// close as libswscale or closer. Frames at an odd multiple of 2 wide (66) exercise the SIMD row
/// functions' tails.
@Suite(.excludable)
struct PixelConversionEquivalenceTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        let source: PixelFormat, target: PixelFormat
        var testDescription: String { "\(source) → \(target)" }
        var changesColourModel: Bool { source.isYUV != target.isYUV }
    }

    static let pairs = PixelFormat.allCases.flatMap { source in
        PixelFormat.allCases.compactMap { LibYUVConversion(from: source, to: $0) != nil ? Pair(source: source, target: $0) : nil }
    }
    static let sizes = [(width: 66, height: 38), (width: 160, height: 90)]
    static let halvable = PixelFormat.allCases.filter { LibYUVConversion(from: $0, to: $0, halving: true) != nil }

    /// The test pattern (colour bars, gradients) in `format` at any size, made by libswscale.
    static func source(_ format: PixelFormat, width: Int, height: Int) throws -> PixelBuffer {
        let frame = try TestPattern(width: 160, height: 128, pixelFormat: .nv12).render(frameIndex: 5)
        let rgb = try PixelConverter.shared.convert(frame, to: .bgra, width: width, height: height, through: .libswscale)
        return format == .bgra ? rgb : try PixelConverter.shared.convert(rgb, to: format, width: width, height: height, through: .libswscale)
    }

    @Test func libyuvIsChosenForItsPairsAtEvenSizesAndLibswscaleForTheRest() throws {
        #expect(Self.pairs.count >= 40)
        let yuyv = try Self.source(.yuyv422, width: 66, height: 38)
        #expect(PixelConverter.library(for: yuyv, to: .yuv420p, width: 66, height: 38) == .libyuv)
        #expect(PixelConverter.library(for: yuyv, to: .bgra, width: 66, height: 38) == .libyuv)
        // Scaling, luma (full range to libswscale) and odd sizes stay with libswscale.
        #expect(PixelConverter.library(for: yuyv, to: .yuv420p, width: 32, height: 18) == .libswscale)
        let nv12 = try Self.source(.nv12, width: 128, height: 72)
        #expect(PixelConverter.library(for: nv12, to: .nv12, width: 64, height: 36) == .libyuv)
        #expect(PixelConverter.library(for: nv12, to: .yuv420p, width: 64, height: 36) == .libswscale)
        #expect(PixelConverter.library(for: nv12, to: .nv12, width: 32, height: 18) == .libswscale)
        #expect(PixelConverter.library(for: yuyv, to: .yuyv422, width: 33, height: 19) == .libswscale)
        #expect(PixelConverter.library(for: yuyv, to: .gray8, width: 66, height: 38) == .libswscale)
        let odd = try Self.source(.nv12, width: 65, height: 37)
        #expect(PixelConverter.library(for: odd, to: .yuv420p, width: 65, height: 37) == .libswscale)
        // A conversion libyuv does not make is refused when asked for by name, never made wrong.
        #expect(throws: CaptureError.self) {
            try PixelConverter.shared.convert(yuyv, to: .gray8, width: 66, height: 38, through: .libyuv)
        }
        // What the chosen route hands out is libyuv's conversion.
        let chosen = try PixelConverter.shared.convert(yuyv, to: .bgra, width: 66, height: 38)
        let named = try PixelConverter.shared.convert(yuyv, to: .bgra, width: 66, height: 38, through: .libyuv)
        #expect(chosen.hasSamePixels(as: named))
    }

    @Test(arguments: pairs.filter { !$0.changesColourModel })
    func repackingMatchesLibswscaleSampleForSample(_ pair: Pair) throws {
        for size in Self.sizes {
            let source = try Self.source(pair.source, width: size.width, height: size.height)
            let yuv = try PixelConverter.shared.convert(source, to: pair.target, width: size.width, height: size.height, through: .libyuv)
            let sws = try PixelConverter.shared.convert(source, to: pair.target, width: size.width, height: size.height, through: .libswscale)
            let a = yuv.packedBytes(), b = sws.packedBytes()
            #expect(a.count == b.count)
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 1, "\(pair.testDescription) at \(size.width)x\(size.height): libyuv and libswscale differ by \(worst)")
        }
    }

    @Test(arguments: halvable)
    func halvingMatchesLibswscalesAreaFilterSampleForSample(_ format: PixelFormat) throws {
        for size in [(width: 132, height: 76), (width: 320, height: 180)] {
            let source = try Self.source(format, width: size.width, height: size.height)
            let half = (width: size.width / 2, height: size.height / 2)
            let yuv = try PixelConverter.shared.convert(source, to: format, width: half.width, height: half.height, through: .libyuv)
            let sws = try PixelConverter.shared.convert(source, to: format, width: half.width, height: half.height, through: .libswscale)
            let a = yuv.packedBytes(), b = sws.packedBytes()
            #expect(a.count == b.count && a.count == format.packedFrameSize(width: half.width, height: half.height))
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 1, "\(format) halved from \(size.width)x\(size.height): libyuv and libswscale differ by \(worst)")
        }
    }

    @Test(arguments: pairs.filter { $0.changesColourModel })
    func colourConversionsAreAtLeastAsCloseToBT601AsLibswscale(_ pair: Pair) throws {
        for size in Self.sizes {
            let source = try Self.source(pair.source, width: size.width, height: size.height)
            let yuv = try PixelConverter.shared.convert(source, to: pair.target, width: size.width, height: size.height, through: .libyuv)
            let sws = try PixelConverter.shared.convert(source, to: pair.target, width: size.width, height: size.height, through: .libswscale)
            let libyuvError = BT601.worstError(of: yuv, from: source), libswscaleError = BT601.worstError(of: sws, from: source)
            // libyuv rounds YUV → RGB through 6-bit coefficients: up to 2 off; RGB → YUV up to 1.
            let bound = pair.source.isYUV ? 2 : 1
            #expect(libyuvError <= bound, "\(pair.testDescription) at \(size.width)x\(size.height): libyuv is \(libyuvError) off BT.601")
            #expect(libyuvError <= libswscaleError,
                    "\(pair.testDescription) at \(size.width)x\(size.height): libyuv \(libyuvError) off BT.601, libswscale \(libswscaleError)")
        }
    }
}

/// The BT.601 formulas in floating point: the reference both libraries are held to.
private enum BT601 {
    /// The largest difference, over every sample of `result`, from the exact conversion of
    /// `source`. YUV → RGB takes each pixel's chroma sample as is (both libraries replicate
    /// chroma); RGB → YUV averages the pixels a chroma sample covers.
    static func worstError(of result: PixelBuffer, from source: PixelBuffer) -> Int {
        var worst = 0
        func note(_ value: UInt8, _ exact: Double) {
            worst = max(worst, abs(Int(value) - Int(min(255, max(0, exact)).rounded())))
        }
        if source.pixelFormat.isYUV {
            for y in 0..<source.height {
                for x in 0..<source.width {
                    let (luma, cb, cr) = Pixels.yuv(source, x: x, y: y)
                    let l = (Double(luma) - 16) * 255 / 219, u = (Double(cb) - 128) * 255 / 224, v = (Double(cr) - 128) * 255 / 224
                    let exact = (r: l + 1.402 * v, g: l - 0.344136 * u - 0.714136 * v, b: l + 1.772 * u)
                    let got = Pixels.rgb(result, x: x, y: y)
                    note(got.r, exact.r); note(got.g, exact.g); note(got.b, exact.b)
                }
            }
            return worst
        }
        let chroma = result.pixelFormat.chromaBlock
        for y in 0..<source.height {
            for x in 0..<source.width {
                let p = Pixels.rgb(source, x: x, y: y)
                note(Pixels.yuv(result, x: x, y: y).y, 16 + (65.481 * Double(p.r) + 128.553 * Double(p.g) + 24.966 * Double(p.b)) / 255)
                guard x % chroma.width == 0, y % chroma.height == 0 else { continue }
                var r = 0.0, g = 0.0, b = 0.0
                for dy in 0..<chroma.height {
                    for dx in 0..<chroma.width {
                        let q = Pixels.rgb(source, x: x + dx, y: y + dy)
                        r += Double(q.r); g += Double(q.g); b += Double(q.b)
                    }
                }
                let n = Double(chroma.width * chroma.height)
                (r, g, b) = (r / n, g / n, b / n)
                let got = Pixels.yuv(result, x: x, y: y)
                note(got.u, 128 + (-37.797 * r - 74.203 * g + 112 * b) / 255)
                note(got.v, 128 + (112 * r - 93.786 * g - 18.214 * b) / 255)
            }
        }
        return worst
    }
}

/// Reads one pixel's samples from any layout.
private enum Pixels {
    static func byte(_ buffer: PixelBuffer, plane: Int, x: Int, y: Int) -> UInt8 {
        buffer.withUnsafeBytes(ofPlane: plane) { $0[y * buffer.bytesPerRow(ofPlane: plane) + x] }
    }

    static func yuv(_ buffer: PixelBuffer, x: Int, y: Int) -> (y: UInt8, u: UInt8, v: UInt8) {
        let pair = x / 2 * 4
        switch buffer.pixelFormat {
        case .yuyv422:
            return (byte(buffer, plane: 0, x: pair + x % 2 * 2, y: y), byte(buffer, plane: 0, x: pair + 1, y: y), byte(buffer, plane: 0, x: pair + 3, y: y))
        case .uyvy422:
            return (byte(buffer, plane: 0, x: pair + 1 + x % 2 * 2, y: y), byte(buffer, plane: 0, x: pair, y: y), byte(buffer, plane: 0, x: pair + 2, y: y))
        case .nv12, .nv21:
            let u = byte(buffer, plane: 1, x: x / 2 * 2, y: y / 2), v = byte(buffer, plane: 1, x: x / 2 * 2 + 1, y: y / 2)
            return (byte(buffer, plane: 0, x: x, y: y), buffer.pixelFormat == .nv12 ? u : v, buffer.pixelFormat == .nv12 ? v : u)
        case .yuv420p:
            return (byte(buffer, plane: 0, x: x, y: y), byte(buffer, plane: 1, x: x / 2, y: y / 2), byte(buffer, plane: 2, x: x / 2, y: y / 2))
        case .yuv422p:
            return (byte(buffer, plane: 0, x: x, y: y), byte(buffer, plane: 1, x: x / 2, y: y), byte(buffer, plane: 2, x: x / 2, y: y))
        default:
            preconditionFailure("\(buffer.pixelFormat) has no chroma samples")
        }
    }

    static func rgb(_ buffer: PixelBuffer, x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        func at(_ offset: Int, _ size: Int) -> UInt8 { byte(buffer, plane: 0, x: x * size + offset, y: y) }
        switch buffer.pixelFormat {
        case .rgb24: return (at(0, 3), at(1, 3), at(2, 3))
        case .bgr24: return (at(2, 3), at(1, 3), at(0, 3))
        case .rgba: return (at(0, 4), at(1, 4), at(2, 4))
        case .bgra: return (at(2, 4), at(1, 4), at(0, 4))
        default:
            preconditionFailure("\(buffer.pixelFormat) is not RGB")
        }
    }
}

private extension PixelFormat {
    /// The pixels one chroma sample covers.
    var chromaBlock: (width: Int, height: Int) {
        switch self {
        case .nv12, .nv21, .yuv420p: return (2, 2)
        case .yuyv422, .uyvy422, .yuv422p: return (2, 1)
        default: return (1, 1)
        }
    }
}
