import CaptureKitCore
package import CFFmpeg
import CYUV
import Synchronization

/// Converts frames between pixel formats and sizes, reusing scaler contexts and destination
/// buffers: with libyuv where it has the conversion (same size or halved, even dimensions; see
/// ``LibYUVConversion``), with libswscale otherwise (both SIMD). Thread-safe: each libswscale
/// conversion borrows a context of its own.
package final class PixelConverter: Sendable {
    package static let shared = PixelConverter()

    private struct Key: Hashable {
        var source: PixelFormat, sourceWidth: Int, sourceHeight: Int
        var target: PixelFormat, targetWidth: Int, targetHeight: Int
    }

    // Unchecked Sendable: an encoder or scaler context of a C library, used by one thread at a time.
    private struct Context: @unchecked Sendable { let pointer: OpaquePointer }
    private let idleContexts = Mutex<[Key: [Context]]>([:])
    private let pools = Mutex<[Key: PixelBufferPool]>([:])

    /// The two libraries a conversion can go through.
    package enum Library: Sendable {
        case libyuv, libswscale
    }

    /// The library a conversion from `source` to `format` at `width`×`height` goes through.
    package static func library(for source: PixelBuffer, to format: PixelFormat, width: Int, height: Int) -> Library {
        libyuvConversion(for: source, to: format, width: width, height: height) == nil ? .libswscale : .libyuv
    }

    private static func libyuvConversion(for source: PixelBuffer, to format: PixelFormat, width: Int, height: Int) -> LibYUVConversion? {
        // Odd sizes are left to libswscale, whose chroma edge handling is the reference.
        guard width % 2 == 0, height % 2 == 0 else { return nil }
        if width == source.width, height == source.height { return LibYUVConversion(from: source.pixelFormat, to: format) }
        guard width * 2 == source.width, height * 2 == source.height else { return nil }
        return LibYUVConversion(from: source.pixelFormat, to: format, halving: true)
    }

    /// `source` as a new buffer in `format` at `width`×`height`, through `library` when given
    /// (for comparisons; `.libyuv` must be what ``library(for:to:width:height:)`` chooses or is
    /// refused), through the library chosen for the pair otherwise.
    package func convert(_ source: PixelBuffer, to format: PixelFormat, width: Int, height: Int,
                         through library: Library? = nil) throws(CaptureError) -> PixelBuffer {
        // 10- and 12-bit Bayer samples sit in the low bits of their words; libswscale takes
        // 16-bit ones, so they are moved to the top bits first (libyuv).
        if let depth = source.pixelFormat.bayerBitDepth, depth != 8, depth != 16, let wide = source.pixelFormat.bayer16 {
            return try convert(msbAligned(source, depth: depth, as: wide), to: format, width: width, height: height, through: library)
        }
        // Raw Bayer is demosaiced to RGB first, by libswscale at the frame's size: its direct
        // Bayer → YUV path (FFmpeg 5.1) gets the colours wrong (a yellow bar comes out cyan).
        if source.pixelFormat.isBayer, format != .rgb24 {
            return try convert(convert(source, to: .rgb24, width: source.width, height: source.height), to: format, width: width, height: height,
                               through: library)
        }
        let key = Key(source: source.pixelFormat, sourceWidth: source.width, sourceHeight: source.height,
                      target: format, targetWidth: width, targetHeight: height)
        let pool = try destinationPool(for: key)
        let destination = try pool.makeBuffer()
        let conversion = Self.libyuvConversion(for: source, to: format, width: width, height: height)
        if library ?? (conversion == nil ? .libswscale : .libyuv) == .libyuv {
            guard let conversion, conversion.run(source, into: destination) == 0 else {
                throw CaptureError(.conversionFailed, "libyuv cannot convert \(source.width)x\(source.height) \(source.pixelFormat) to \(width)x\(height) \(format)",
                                   operation: "libyuv")
            }
            return destination
        }
        let context = try borrowContext(for: key)
        defer { idleContexts.withLock { $0[key, default: []].append(context) } }

        var sourceData = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
        var sourceStrides = [Int32](repeating: 0, count: 4)
        for (index, plane) in source.planes.enumerated() {
            sourceData[index] = UnsafePointer((source.storage.bytes + plane.offset).assumingMemoryBound(to: UInt8.self))
            sourceStrides[index] = Int32(plane.bytesPerRow)
        }
        var targetData = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var targetStrides = [Int32](repeating: 0, count: 4)
        for (index, plane) in destination.planes.enumerated() {
            targetData[index] = (destination.storage.bytes + plane.offset).assumingMemoryBound(to: UInt8.self)
            targetStrides[index] = Int32(plane.bytesPerRow)
        }
        let rows = sws_scale(context.pointer, sourceData, sourceStrides, 0, Int32(source.height), targetData, targetStrides)
        guard rows > 0 else {
            throw CaptureError(.conversionFailed, "cannot convert \(source.width)x\(source.height) \(source.pixelFormat) to \(width)x\(height) \(format)",
                               operation: "sws_scale")
        }
        return destination
    }

    /// A packed 4:2:2 frame's luma samples, as they are, in a pooled `gray8` buffer (libyuv);
    /// nil for other layouts.
    package func luma(of source: PixelBuffer) throws(CaptureError) -> PixelBuffer? {
        guard let conversion = LibYUVConversion(lumaOf: source.pixelFormat) else { return nil }
        let key = Key(source: source.pixelFormat, sourceWidth: source.width, sourceHeight: source.height,
                      target: .gray8, targetWidth: source.width, targetHeight: source.height)
        let luma = try destinationPool(for: key).makeBuffer()
        guard conversion.run(source, into: luma) == 0 else {
            throw CaptureError(.conversionFailed, "libyuv cannot take the luma of a \(source.width)x\(source.height) \(source.pixelFormat) frame",
                               operation: "libyuv")
        }
        return luma
    }

    /// `source`'s `depth`-bit samples moved to the top of their 16-bit words, as `wide`.
    /// Wraps libyuv's ConvertToMSBPlane_16.
    private func msbAligned(_ source: PixelBuffer, depth: Int, as wide: PixelFormat) throws(CaptureError) -> PixelBuffer {
        let key = Key(source: source.pixelFormat, sourceWidth: source.width, sourceHeight: source.height,
                      target: wide, targetWidth: source.width, targetHeight: source.height)
        let destination = try destinationPool(for: key).makeBuffer()
        // Both frames outlive this call, and their storage never moves.
        let from = UnsafePointer((source.storage.bytes + source.planes[0].offset).assumingMemoryBound(to: UInt16.self))
        let to = (destination.storage.bytes + destination.planes[0].offset).assumingMemoryBound(to: UInt16.self)
        ConvertToMSBPlane_16(from, Int32(source.bytesPerRow(ofPlane: 0) / 2), to, Int32(destination.bytesPerRow(ofPlane: 0) / 2),
                             Int32(source.width), Int32(source.height), Int32(depth))
        return destination
    }

    private func destinationPool(for key: Key) throws(CaptureError) -> PixelBufferPool {
        if let pool = pools.withLock({ $0[key] }) { return pool }
        let pool = try PixelBufferPool(width: key.targetWidth, height: key.targetHeight, pixelFormat: key.target)
        return pools.withLock { pools in
            if let existing = pools[key] { return existing }
            pools[key] = pool
            return pool
        }
    }

    private func borrowContext(for key: Key) throws(CaptureError) -> Context {
        if let context = idleContexts.withLock({ $0[key]?.popLast() }) { return context }
        try FFmpeg.prepare()
        // Downscales average the pixels each output pixel covers (the area filter: libyuv's box
        // filter when halving, sample for sample); upscales interpolate.
        let filter = key.targetWidth == key.sourceWidth && key.targetHeight == key.sourceHeight ? SWS_POINT
            : key.targetWidth <= key.sourceWidth && key.targetHeight <= key.sourceHeight ? SWS_AREA : SWS_BILINEAR
        guard let pointer = sws_getContext(
            Int32(key.sourceWidth), Int32(key.sourceHeight), key.source.avPixelFormat,
            Int32(key.targetWidth), Int32(key.targetHeight), key.target.avPixelFormat,
            filter, nil, nil, nil
        ) else {
            throw CaptureError(.conversionFailed, "libswscale cannot convert \(key.source) to \(key.target) at these sizes",
                               operation: "sws_getContext")
        }
        return Context(pointer: pointer)
    }
}

extension PixelFormat {
    /// FFmpeg's name for the layout.
    package var avPixelFormat: AVPixelFormat {
        switch self {
        case .yuyv422: return AV_PIX_FMT_YUYV422
        case .uyvy422: return AV_PIX_FMT_UYVY422
        case .nv12: return AV_PIX_FMT_NV12
        case .nv21: return AV_PIX_FMT_NV21
        case .yuv420p: return AV_PIX_FMT_YUV420P
        case .yuv422p: return AV_PIX_FMT_YUV422P
        case .gray8: return AV_PIX_FMT_GRAY8
        case .rgb24: return AV_PIX_FMT_RGB24
        case .bgr24: return AV_PIX_FMT_BGR24
        case .bgra: return AV_PIX_FMT_BGRA
        case .rgba: return AV_PIX_FMT_RGBA
        case .bayerBGGR8: return AV_PIX_FMT_BAYER_BGGR8
        case .bayerGBRG8: return AV_PIX_FMT_BAYER_GBRG8
        case .bayerGRBG8: return AV_PIX_FMT_BAYER_GRBG8
        case .bayerRGGB8: return AV_PIX_FMT_BAYER_RGGB8
        case .bayerBGGR16: return AV_PIX_FMT_BAYER_BGGR16LE
        case .bayerGBRG16: return AV_PIX_FMT_BAYER_GBRG16LE
        case .bayerGRBG16: return AV_PIX_FMT_BAYER_GRBG16LE
        case .bayerRGGB16: return AV_PIX_FMT_BAYER_RGGB16LE
        // 10- and 12-bit samples are moved to the top bits before libswscale sees them.
        case .bayerBGGR10, .bayerBGGR12: return AV_PIX_FMT_BAYER_BGGR16LE
        case .bayerGBRG10, .bayerGBRG12: return AV_PIX_FMT_BAYER_GBRG16LE
        case .bayerGRBG10, .bayerGRBG12: return AV_PIX_FMT_BAYER_GRBG16LE
        case .bayerRGGB10, .bayerRGGB12: return AV_PIX_FMT_BAYER_RGGB16LE
        }
    }
}
