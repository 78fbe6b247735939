import CaptureKitCore
import CYUV

/// A conversion libyuv makes, where it is faster than libswscale and at least as exact
/// (``PixelConverter`` chooses it over libswscale): between two pixel formats at one size, or
/// a frame halved in both directions in its own format.
///
/// Repacking pairs (packed 4:2:2 → planar, NV12/NV21 ↔ I420, planar → packed, RGB byte
/// orders) give libswscale's output sample for sample. Colour-matrix pairs (YUV → RGB, RGB →
/// YUV; BT.601, limited-range YUV and full-range RGB on both sides, as libswscale's defaults)
/// are closer to the BT.601 formulas than libswscale's: libswscale's YUV → RGB rounds up to 3
/// off them, libyuv's up to 2, and libyuv averages each chroma sample over the pixels it
/// covers where libswscale's point mode picks one. `gray8` stays with libswscale, which takes
/// it for full-range luma. Halving averages each 2×2 block (a box filter), as libswscale's
/// area filter does, sample for sample.
///
/// libyuv names packed RGB after its 32-bit little-endian word: its `ARGB` is `bgra` in memory,
/// `ABGR` is `rgba`, `RAW` is `rgb24` and `RGB24` is `bgr24`.
package struct LibYUVConversion: Sendable {
    private typealias In = UnsafePointer<UInt8>?
    private typealias Out = UnsafeMutablePointer<UInt8>?
    // The shapes of libyuv's conversion functions, by planes in and out.
    private typealias OneToOne = @convention(c) (In, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias OneToTwo = @convention(c) (In, Int32, Out, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias OneToThree = @convention(c) (In, Int32, Out, Int32, Out, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias TwoToOne = @convention(c) (In, Int32, In, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias TwoToTwo = @convention(c) (In, Int32, In, Int32, Out, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias TwoToThree = @convention(c) (In, Int32, In, Int32, Out, Int32, Out, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias ThreeToOne = @convention(c) (In, Int32, In, Int32, In, Int32, Out, Int32, Int32, Int32) -> Int32
    private typealias ThreeToTwo = @convention(c) (In, Int32, In, Int32, In, Int32, Out, Int32, Out, Int32, Int32, Int32) -> Int32

    private enum Kernel {
        case oneToOne(OneToOne), oneToTwo(OneToTwo), oneToThree(OneToThree)
        case twoToOne(TwoToOne), twoToTwo(TwoToTwo), twoToThree(TwoToThree)
        case threeToOne(ThreeToOne), threeToTwo(ThreeToTwo)
        case halve
    }

    // Unchecked Sendable: C function pointers, which hold no state.
    private struct Function: @unchecked Sendable { let kernel: Kernel }
    private let function: Function

    /// libyuv's copy of a packed 4:2:2 frame's luma samples into a `gray8` plane, as they are
    /// (no range stretch, unlike a `gray8` conversion); nil for other layouts.
    package init?(lumaOf source: PixelFormat) {
        switch source {
        case .yuyv422: function = Function(kernel: .oneToOne(YUY2ToY))
        case .uyvy422: function = Function(kernel: .oneToOne(UYVYToY))
        default: return nil
        }
    }

    /// The libyuv conversion from `source` to `target` at one size, or halving a frame in
    /// `source` (then `target` must be the same format); nil where libswscale does it.
    package init?(from source: PixelFormat, to target: PixelFormat, halving: Bool = false) {
        if halving {
            guard source == target, [.yuv420p, .nv12, .nv21, .bgra, .rgba, .gray8].contains(source) else { return nil }
            function = Function(kernel: .halve)
            return
        }
        let kernel: Kernel
        switch (source, target) {
        case (.yuyv422, .yuv420p): kernel = .oneToThree(YUY2ToI420)
        case (.yuyv422, .yuv422p): kernel = .oneToThree(YUY2ToI422)
        case (.yuyv422, .bgra): kernel = .oneToOne(YUY2ToARGB)
        case (.uyvy422, .yuv420p): kernel = .oneToThree(UYVYToI420)
        case (.uyvy422, .yuv422p): kernel = .oneToThree(UYVYToI422)
        case (.uyvy422, .bgra): kernel = .oneToOne(UYVYToARGB)
        case (.nv12, .yuv420p): kernel = .twoToThree(NV12ToI420)
        case (.nv12, .nv21), (.nv21, .nv12): kernel = .twoToTwo(NV21ToNV12)  // swaps U and V either way
        case (.nv12, .bgra): kernel = .twoToOne(NV12ToARGB)
        case (.nv12, .rgba): kernel = .twoToOne(NV12ToABGR)
        case (.nv12, .rgb24): kernel = .twoToOne(NV12ToRAW)
        case (.nv12, .bgr24): kernel = .twoToOne(NV12ToRGB24)
        case (.nv21, .yuv420p): kernel = .twoToThree(NV21ToI420)
        case (.nv21, .bgra): kernel = .twoToOne(NV21ToARGB)
        case (.nv21, .rgba): kernel = .twoToOne(NV21ToABGR)
        case (.nv21, .rgb24): kernel = .twoToOne(NV21ToRAW)
        case (.nv21, .bgr24): kernel = .twoToOne(NV21ToRGB24)
        case (.yuv420p, .nv12): kernel = .threeToTwo(I420ToNV12)
        case (.yuv420p, .nv21): kernel = .threeToTwo(I420ToNV21)
        case (.yuv420p, .yuyv422): kernel = .threeToOne(I420ToYUY2)
        case (.yuv420p, .uyvy422): kernel = .threeToOne(I420ToUYVY)
        case (.yuv420p, .bgra): kernel = .threeToOne(I420ToARGB)
        case (.yuv420p, .rgba): kernel = .threeToOne(I420ToABGR)
        case (.yuv420p, .rgb24): kernel = .threeToOne(I420ToRAW)
        case (.yuv420p, .bgr24): kernel = .threeToOne(I420ToRGB24)
        case (.yuv422p, .yuyv422): kernel = .threeToOne(I422ToYUY2)
        case (.yuv422p, .uyvy422): kernel = .threeToOne(I422ToUYVY)
        case (.yuv422p, .bgra): kernel = .threeToOne(I422ToARGB)
        case (.yuv422p, .rgba): kernel = .threeToOne(I422ToABGR)
        case (.yuv422p, .rgb24): kernel = .threeToOne(I422ToRAW)
        case (.yuv422p, .bgr24): kernel = .threeToOne(I422ToRGB24)
        case (.bgra, .yuv420p): kernel = .oneToThree(ARGBToI420)
        case (.bgra, .yuv422p): kernel = .oneToThree(ARGBToI422)
        case (.bgra, .nv12): kernel = .oneToTwo(ARGBToNV12)
        case (.bgra, .nv21): kernel = .oneToTwo(ARGBToNV21)
        case (.bgra, .rgba), (.rgba, .bgra): kernel = .oneToOne(ARGBToABGR)  // swaps R and B either way
        case (.bgra, .rgb24): kernel = .oneToOne(ARGBToRAW)
        case (.bgra, .bgr24): kernel = .oneToOne(ARGBToRGB24)
        case (.rgba, .yuv420p): kernel = .oneToThree(ABGRToI420)
        case (.rgba, .nv12): kernel = .oneToTwo(ABGRToNV12)
        case (.rgba, .nv21): kernel = .oneToTwo(ABGRToNV21)
        case (.rgb24, .yuv420p): kernel = .oneToThree(RAWToI420)
        case (.rgb24, .bgra): kernel = .oneToOne(RAWToARGB)
        case (.rgb24, .bgr24), (.bgr24, .rgb24): kernel = .oneToOne(RAWToRGB24)  // swaps R and B either way
        case (.bgr24, .yuv420p): kernel = .oneToThree(RGB24ToI420)
        case (.bgr24, .bgra): kernel = .oneToOne(RGB24ToARGB)
        default: return nil
        }
        function = Function(kernel: kernel)
    }

    /// Converts `source` into `target`, a buffer of the same size in the target format (or of
    /// half the size when halving). Returns libyuv's status: 0 when done, -1 when it refused
    /// the arguments.
    package func run(_ source: PixelBuffer, into target: PixelBuffer) -> Int32 {
        func input(_ plane: Int) -> In {
            UnsafePointer((source.storage.bytes + source.planes[plane].offset).assumingMemoryBound(to: UInt8.self))
        }
        func output(_ plane: Int) -> Out {
            (target.storage.bytes + target.planes[plane].offset).assumingMemoryBound(to: UInt8.self)
        }
        let i = source.planes.map { Int32($0.bytesPerRow) }, o = target.planes.map { Int32($0.bytesPerRow) }
        let w = Int32(source.width), h = Int32(source.height)
        switch function.kernel {
        case .oneToOne(let f): return f(input(0), i[0], output(0), o[0], w, h)
        case .oneToTwo(let f): return f(input(0), i[0], output(0), o[0], output(1), o[1], w, h)
        case .oneToThree(let f): return f(input(0), i[0], output(0), o[0], output(1), o[1], output(2), o[2], w, h)
        case .twoToOne(let f): return f(input(0), i[0], input(1), i[1], output(0), o[0], w, h)
        case .twoToTwo(let f): return f(input(0), i[0], input(1), i[1], output(0), o[0], output(1), o[1], w, h)
        case .twoToThree(let f): return f(input(0), i[0], input(1), i[1], output(0), o[0], output(1), o[1], output(2), o[2], w, h)
        case .threeToOne(let f): return f(input(0), i[0], input(1), i[1], input(2), i[2], output(0), o[0], w, h)
        case .threeToTwo(let f):
            return f(input(0), i[0], input(1), i[1], input(2), i[2], output(0), o[0], output(1), o[1], w, h)
        case .halve:
            let tw = Int32(target.width), th = Int32(target.height)
            switch source.pixelFormat {
            case .yuv420p:
                return I420Scale(input(0), i[0], input(1), i[1], input(2), i[2], w, h,
                                 output(0), o[0], output(1), o[1], output(2), o[2], tw, th, kFilterBox)
            case .nv12, .nv21:  // U and V scale alike, whichever comes first
                return NV12Scale(input(0), i[0], input(1), i[1], w, h, output(0), o[0], output(1), o[1], tw, th, kFilterBox)
            case .bgra, .rgba:  // four bytes a pixel, whatever their order
                return ARGBScale(input(0), i[0], w, h, output(0), o[0], tw, th, kFilterBox)
            case .gray8:
                ScalePlane(input(0), i[0], w, h, output(0), o[0], tw, th, kFilterBox)
                return 0
            default:  // `make` offers halving for the formats above only
                return -1
            }
        }
    }
}
