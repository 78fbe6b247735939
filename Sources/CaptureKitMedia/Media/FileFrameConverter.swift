import CaptureKitCore
package import CFFmpeg

/// Turns decoded video frames into pixel buffers of the device's format. A frame already in
/// that layout and size is handed out by reference (its decoder buffers are released when the
/// last consumer lets go), so the common case copies nothing; any other layout (10-bit,
/// 4:4:4, full-range `yuvj`) is converted once with libswscale into a pooled buffer.
/// Used by one thread at a time.
package final class FileFrameConverter: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg scaler used by one thread at a time.
    package let pixelFormat: PixelFormat
    package let width: Int
    package let height: Int
    package let path: String
    private var scaler: OpaquePointer?
    private var pool: PixelBufferPool?

    package init(pixelFormat: PixelFormat, width: Int, height: Int, path: String) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.path = path
    }

    deinit { sws_freeContext(scaler) }

    /// The device layout FFmpeg's `format` maps to without conversion, if any. The `yuvj`
    /// formats share their layout with `yuv` ones but not their range, so they are not mapped.
    package static func pixelFormat(exactly format: AVPixelFormat) -> PixelFormat? {
        PixelFormat.allCases.first { $0.avPixelFormat == format }
    }

    /// `frame` as a pixel buffer; leaves `frame` unreferenced (its data moved or converted).
    package func pixelBuffer(from frame: UnsafeMutablePointer<AVFrame>) throws(CaptureError) -> PixelBuffer {
        defer { av_frame_unref(frame) }
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        let planes = Self.planes(of: frame)
        if Int(frame.pointee.width) == width, Int(frame.pointee.height) == height,
           Self.pixelFormat(exactly: source) == pixelFormat,
           planes.prefix(pixelFormat.planeCount).allSatisfy({ $0.data != nil && $0.stride > 0 }) {
            return try wrap(frame, planes: planes)
        }
        return try convert(frame, from: source, planes: planes)
    }

    /// Hands the frame's memory out by reference: the planes are addressed from the lowest plane
    /// pointer (the decoder allocates planes separately), and the moved frame is freed when the
    /// buffer's storage is released.
    private func wrap(_ frame: UnsafeMutablePointer<AVFrame>, planes: [Plane]) throws(CaptureError) -> PixelBuffer {
        guard let held = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: path)
        }
        av_frame_move_ref(held, frame)
        let reference = FrameReference(held)
        let used = planes.prefix(pixelFormat.planeCount).enumerated().compactMap { index, plane in
            plane.data.map { (start: UnsafeMutableRawPointer($0), stride: plane.stride, rows: pixelFormat.rowCount(plane: index, height: height)) }
        }
        guard used.count == pixelFormat.planeCount, let base = used.map(\.start).min() else {
            throw .internalError("a decoded frame lacks planes of \(pixelFormat)")
        }
        let end = used.map { $0.start + $0.stride * $0.rows }.max() ?? base
        let layout = used.map { PixelBuffer.Plane(offset: base.distance(to: $0.start), bytesPerRow: $0.stride, rowCount: $0.rows) }
        let storage = MediaStorage(lentBy: reference, tag: 0, bytes: base, byteCount: base.distance(to: end))
        return PixelBuffer(width: width, height: height, pixelFormat: pixelFormat, planes: layout, storage: storage)
    }

    /// Converts with libswscale into a pooled buffer: wraps `sws_getCachedContext` and `sws_scale`.
    /// Bicubic, as the `ffmpeg` command does by default, so a converted frame matches its output.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, from source: AVPixelFormat, planes: [Plane]) throws(CaptureError) -> PixelBuffer {
        let sourceWidth = frame.pointee.width, sourceHeight = frame.pointee.height
        guard sourceWidth > 0, sourceHeight > 0 else {
            throw CaptureError(.corruptFile, "the decoder returned an empty frame", path: path)
        }
        guard let context = sws_getCachedContext(scaler, sourceWidth, sourceHeight, source, Int32(width), Int32(height),
                                                 pixelFormat.avPixelFormat, SWS_BICUBIC, nil, nil, nil) else {
            let name = av_get_pix_fmt_name(source).map { String(cString: $0) } ?? "unknown"
            throw CaptureError(.unsupportedFile, "cannot convert the file's \(name) frames to \(pixelFormat)",
                               operation: "sws_getCachedContext", path: path)
        }
        scaler = context
        let pool: PixelBufferPool
        if let existing = self.pool {
            pool = existing
        } else {
            pool = try PixelBufferPool(width: width, height: height, pixelFormat: pixelFormat)
            self.pool = pool
        }
        let destination = try pool.makeBuffer()
        let sourceData: [UnsafePointer<UInt8>?] = planes.map { $0.data.map { UnsafePointer($0) } }
        let sourceStrides = planes.map { Int32(clamping: $0.stride) }
        var targetData = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var targetStrides = [Int32](repeating: 0, count: 4)
        for (index, plane) in destination.planes.enumerated() {
            targetData[index] = (destination.storage.bytes + plane.offset).assumingMemoryBound(to: UInt8.self)
            targetStrides[index] = Int32(plane.bytesPerRow)
        }
        let rows = sws_scale(context, sourceData, sourceStrides, 0, sourceHeight, targetData, targetStrides)
        guard rows > 0 else {
            throw CaptureError(.conversionFailed, "cannot convert a decoded frame to \(pixelFormat)", operation: "sws_scale", path: path)
        }
        return destination
    }

    package struct Plane {
        package var data: UnsafeMutablePointer<UInt8>?
        package var stride: Int
    }

    /// The first four planes of a frame (`AVFrame.data` and `linesize` are C arrays, imported as tuples).
    package static func planes(of frame: UnsafeMutablePointer<AVFrame>) -> [Plane] {
        let pointers = withUnsafeBytes(of: frame.pointee.data) { raw in
            (0..<4).map { raw.load(fromByteOffset: $0 * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
        }
        let strides = withUnsafeBytes(of: frame.pointee.linesize) { raw in
            (0..<4).map { Int(raw.load(fromByteOffset: $0 * MemoryLayout<Int32>.stride, as: Int32.self)) }
        }
        return (0..<4).map { Plane(data: pointers[$0], stride: strides[$0]) }
    }
}
