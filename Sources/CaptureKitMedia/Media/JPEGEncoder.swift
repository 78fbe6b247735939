import CaptureKitCore
internal import CPhotoKernels
internal import CTurboJPEG
import Foundation
import Glibc
import Synchronization

/// JPEG files from camera frames with libjpeg-turbo's TurboJPEG API, straight from YUV planes
/// (never through RGB): 4:2:0 sources stay 4:2:0, 4:2:2 sources stay 4:2:2 (4:4:0 when turned a
/// quarter), grey stays grey.
///
/// Cameras deliver limited-range YUV and JFIF means full range, so every sample is expanded on
/// the way in. For the layouts cameras send (YUYV, UYVY, NV12, NV21, I420) one SSE2 pass of the
/// TurboJPEG shim both splits the planes and expands the range; other layouts, scaled frames
/// and turned pixels go through libswscale to planar YUV first. An EXIF block, when given,
/// replaces the JFIF APP0 segment right after SOI, as the EXIF standard asks.
package enum JPEGEncoder {
    /// The planar layout a frame in `format` is encoded from when it has to be converted first
    /// (to be scaled or turned): convert with `SampleBuffer.converted(to:)` so the conversion is
    /// shared. Packed RGB layouts are encoded as they are.
    package static func planarFormat(for format: PixelFormat) -> PixelFormat {
        switch format {
        case .nv12, .nv21, .yuv420p: return .yuv420p
        case .yuyv422, .uyvy422, .yuv422p: return .yuv422p
        case .gray8: return .gray8
        case .rgb24, .bgr24, .bgra, .rgba: return format
        // Raw Bayer, demosaiced by libswscale: JPEG keeps colour, not the sensor's samples.
        default: return .rgb24
        }
    }

    /// `frame` as a JPEG file at `quality` (1...100), its pixels turned by `orientation`, with
    /// `metadata` as its EXIF block (nil for a bare JFIF file). Wraps tjCompressFromYUVPlanes
    /// (YUV) and tjCompress2 (RGB).
    package static func encode(_ frame: PixelBuffer, quality: Int, applying orientation: EXIFOrientation = .up,
                               metadata: EXIFMetadata?) throws(CaptureError) -> Data {
        try encode(frame, quality: quality, applying: orientation, exif: metadata.map { (m) throws(CaptureError) in try EXIFWriter.app1Payload(for: m) })
    }

    /// As ``encode(_:quality:applying:metadata:)`` with a ready APP1 payload (`"Exif\0\0"` + TIFF).
    package static func encode(_ frame: PixelBuffer, quality: Int, applying orientation: EXIFOrientation = .up,
                       exif: [UInt8]?) throws(CaptureError) -> Data {
        guard (1...100).contains(quality) else { throw .invalidArgument("JPEG quality \(quality) is out of range (1...100)") }
        if let exif, exif.count > 65_533 {
            throw .invalidArgument("an EXIF block of \(exif.count) bytes does not fit a JPEG APP1 segment (65533 at most)")
        }
        // Camera layouts are split by the kernels as they are read; turning needs planes first.
        let planar = planarFormat(for: frame.pixelFormat)
        let readsDirectly = frame.pixelFormat == planar || (orientation == .up && Self.splitLayouts.contains(frame.pixelFormat))
        let source = readsDirectly ? frame : try PixelConverter.shared.convert(frame, to: planar, width: frame.width, height: frame.height)
        let context = try Context.borrow()
        defer { Context.giveBack(context) }
        let (bytes, count) = source.pixelFormat.isYUV
            ? try context.compressYUV(source, quality: quality, orientation: orientation)
            : try context.compressRGB(source, quality: quality, orientation: orientation)
        return assemble(bytes, count: count, exif: exif)
    }

    /// The packed and semi-planar layouts the shim's kernels split into planes themselves.
    private static let splitLayouts: Set<PixelFormat> = [.yuyv422, .uyvy422, .nv12, .nv21]

    /// SOI, then the APP1 EXIF segment in place of TurboJPEG's JFIF APP0, then the rest.
    private static func assemble(_ jpeg: UnsafePointer<UInt8>, count: Int, exif: [UInt8]?) -> Data {
        guard let exif else { return Data(bytes: jpeg, count: count) }
        var skip = 2
        if count > 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
            skip = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        }
        let length = exif.count + 2
        var file = Data(capacity: count - skip + exif.count + 6)
        file.append(contentsOf: [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)])
        file.append(contentsOf: exif)
        file.append(jpeg + skip, count: count - skip)
        return file
    }

    /// One TurboJPEG compressor with its scratch planes and output buffer. Contexts are pooled:
    /// a handle is not thread-safe, and its buffers are worth keeping between photos.
    private final class Context: @unchecked Sendable {
        // Unchecked Sendable: an encoder or scaler context of a C library, used by one thread at a time.
        private static let idle = Mutex<[Context]>([])
        private static let maximumIdle = 2

        let handle: UnsafeMutableRawPointer
        private var output: UnsafeMutablePointer<UInt8>?
        private var outputCapacity = 0
        private var scratch: UnsafeMutableRawPointer?
        private var scratchCapacity = 0

        private init(handle: UnsafeMutableRawPointer) { self.handle = handle }

        static func borrow() throws(CaptureError) -> Context {
            if let context = idle.withLock({ $0.popLast() }) { return context }
            guard let handle = tjInitCompress() else {
                throw CaptureError(.internalError, "TurboJPEG could not make a compressor: \(String(cString: tjGetErrorStr2(nil)))",
                                   operation: "tjInitCompress")
            }
            return Context(handle: handle)
        }

        static func giveBack(_ context: Context) {
            idle.withLock { if $0.count < maximumIdle { $0.append(context) } }
        }

        deinit {
            tjDestroy(handle)
            if let output { tjFree(output) }
            free(scratch)
        }

        private func scratch(byteCount: Int) throws(CaptureError) -> UnsafeMutableRawPointer {
            if let scratch, scratchCapacity >= byteCount { return scratch }
            free(scratch)
            scratch = nil
            scratchCapacity = 0
            let fresh = try MediaStorage.alignedAllocate(byteCount)
            scratch = fresh
            scratchCapacity = byteCount
            return fresh
        }

        /// An output buffer TurboJPEG never has to grow (`TJFLAG_NOREALLOC`).
        private func outputBuffer(width: Int, height: Int, subsampling: TJSAMP) throws(CaptureError) -> (UnsafeMutablePointer<UInt8>, Int) {
            let needed = Int(tjBufSize(Int32(width), Int32(height), Int32(subsampling.rawValue)))
            if let output, outputCapacity >= needed { return (output, outputCapacity) }
            if let output { tjFree(output) }
            output = nil
            outputCapacity = 0
            guard needed > 0, let fresh = tjAlloc(Int32(clamping: needed)) else {
                throw CaptureError(.outOfMemory, "cannot allocate \(needed) bytes for a JPEG", operation: "tjAlloc")
            }
            output = fresh
            outputCapacity = needed
            return (fresh, needed)
        }

        private func failure(_ operation: String) -> CaptureError {
            CaptureError(.conversionFailed, "JPEG compression failed: \(String(cString: tjGetErrorStr2(handle)))", operation: operation)
        }

        /// Splits and expands the frame into full-range planes in scratch (turning them when
        /// asked; only planar frames can be turned), then compresses.
        func compressYUV(_ frame: PixelBuffer, quality: Int, orientation: EXIFOrientation) throws(CaptureError) -> (UnsafePointer<UInt8>, Int) {
            let swaps = orientation.swapsDimensions
            let width = swaps ? frame.height : frame.width
            let height = swaps ? frame.width : frame.height
            let subsampling: TJSAMP
            switch frame.pixelFormat {
            case .gray8: subsampling = TJSAMP_GRAY
            case .nv12, .nv21, .yuv420p: subsampling = TJSAMP_420
            default: subsampling = swaps ? TJSAMP_440 : TJSAMP_422
            }
            // TurboJPEG's plane sizes for the output; a quarter turn swaps the source planes'.
            var layout: [(offset: Int, stride: Int, width: Int, height: Int)] = []
            var total = 0
            for plane in 0..<(subsampling == TJSAMP_GRAY ? 1 : 3) {
                let w = Int(tjPlaneWidth(Int32(plane), Int32(width), Int32(subsampling.rawValue)))
                let h = Int(tjPlaneHeight(Int32(plane), Int32(height), Int32(subsampling.rawValue)))
                let stride = (w + 63) & ~63
                layout.append((total, stride, w, h))
                total += stride * h
            }
            let base = try scratch(byteCount: total).assumingMemoryBound(to: UInt8.self)
            func target(_ plane: Int) -> UnsafeMutablePointer<UInt8> { base + layout[plane].offset }
            // `frame` outlives this call, and its storage never moves.
            func source(_ plane: Int) -> UnsafePointer<UInt8> {
                UnsafePointer((frame.storage.bytes + frame.planes[plane].offset).assumingMemoryBound(to: UInt8.self))
            }
            switch frame.pixelFormat {
            case .yuyv422, .uyvy422:
                ck_photo_packed422_to_planes(target(0), layout[0].stride, target(1), layout[1].stride, target(2), layout[2].stride,
                                             source(0), frame.bytesPerRow(ofPlane: 0), Int32(frame.width), Int32(frame.height),
                                             frame.pixelFormat == .yuyv422 ? 1 : 0)
            case .nv12, .nv21:
                ck_photo_copy_plane(target(0), layout[0].stride, source(0), frame.bytesPerRow(ofPlane: 0),
                                    Int32(frame.width), Int32(frame.height), Int32(CK_PHOTO_LUMA_TO_FULL))
                ck_photo_interleaved_chroma_to_planes(target(1), layout[1].stride, target(2), layout[2].stride,
                                                      source(1), frame.bytesPerRow(ofPlane: 1), Int32(layout[1].width),
                                                      Int32(layout[1].height), frame.pixelFormat == .nv12 ? 1 : 0)
            default:
                for (plane, out) in layout.enumerated() {
                    let mode = Int32(plane == 0 ? CK_PHOTO_LUMA_TO_FULL : CK_PHOTO_CHROMA_TO_FULL)
                    let sourceStride = frame.bytesPerRow(ofPlane: plane)
                    if orientation == .up {
                        ck_photo_copy_plane(target(plane), out.stride, source(plane), sourceStride, Int32(out.width), Int32(out.height), mode)
                    } else {
                        let walk = orientation.sourceWalk(width: swaps ? out.height : out.width, height: swaps ? out.width : out.height)
                        ck_photo_transform_plane(target(plane), out.stride, Int32(out.width), Int32(out.height),
                                                 source(plane) + walk.origin.y * sourceStride + walk.origin.x,
                                                 walk.row.dy * sourceStride + walk.row.dx,
                                                 walk.column.dy * sourceStride + walk.column.dx, 1, mode)
                    }
                }
            }
            var planes: [UnsafePointer<UInt8>?] = [nil, nil, nil]
            var strides: [Int32] = [0, 0, 0]
            for (plane, out) in layout.enumerated() {
                planes[plane] = UnsafePointer(base + out.offset)
                strides[plane] = Int32(out.stride)
            }
            let (buffer, capacity) = try outputBuffer(width: width, height: height, subsampling: subsampling)
            var jpeg: UnsafeMutablePointer<UInt8>? = buffer
            var size = UInt(capacity)
            let result = planes.withUnsafeMutableBufferPointer { planePointers in
                tjCompressFromYUVPlanes(handle, planePointers.baseAddress, Int32(width), strides, Int32(height),
                                        Int32(subsampling.rawValue), &jpeg, &size, Int32(quality), TJFLAG_NOREALLOC)
            }
            guard result == 0, let jpeg else { throw failure("tjCompressFromYUVPlanes") }
            return (UnsafePointer(jpeg), Int(size))
        }

        /// Compresses packed RGB (turned through scratch first when asked), 4:2:0.
        func compressRGB(_ frame: PixelBuffer, quality: Int, orientation: EXIFOrientation) throws(CaptureError) -> (UnsafePointer<UInt8>, Int) {
            let pixelFormat: TJPF
            switch frame.pixelFormat {
            case .rgb24: pixelFormat = TJPF_RGB
            case .bgr24: pixelFormat = TJPF_BGR
            case .bgra: pixelFormat = TJPF_BGRX
            default: pixelFormat = TJPF_RGBX
            }
            let pixelBytes = frame.pixelFormat.minimumBytesPerRow(plane: 0, width: 1)
            let swaps = orientation.swapsDimensions
            let width = swaps ? frame.height : frame.width
            let height = swaps ? frame.width : frame.height
            let (buffer, capacity) = try outputBuffer(width: width, height: height, subsampling: TJSAMP_420)
            var jpeg: UnsafeMutablePointer<UInt8>? = buffer
            var size = UInt(capacity)
            let sourceStride = frame.bytesPerRow(ofPlane: 0)
            let result = try frame.withUnsafeBytes(ofPlane: 0) { (raw) throws(CaptureError) -> Int32 in
                let source = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var pixels = UnsafePointer(source)
                var pitch = sourceStride
                if orientation != .up {
                    pitch = (width * pixelBytes + 63) & ~63
                    let target = try scratch(byteCount: pitch * height).assumingMemoryBound(to: UInt8.self)
                    let walk = orientation.sourceWalk(width: frame.width, height: frame.height)
                    ck_photo_transform_plane(target, pitch, Int32(width), Int32(height),
                                             source + walk.origin.y * sourceStride + walk.origin.x * pixelBytes,
                                             walk.row.dy * sourceStride + walk.row.dx * pixelBytes,
                                             walk.column.dy * sourceStride + walk.column.dx * pixelBytes,
                                             Int32(pixelBytes), Int32(CK_PHOTO_COPY))
                    pixels = UnsafePointer(target)
                }
                return tjCompress2(handle, pixels, Int32(width), Int32(pitch), Int32(height), Int32(pixelFormat.rawValue),
                                   &jpeg, &size, Int32(TJSAMP_420.rawValue), Int32(quality), TJFLAG_NOREALLOC)
            }
            guard result == 0, let jpeg else { throw failure("tjCompress2") }
            return (UnsafePointer(jpeg), Int(size))
        }
    }
}
