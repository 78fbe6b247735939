internal import CLibCamera
import Glibc

/// Makes samples of a libcamera stream's completed frames: the configured layout (stride and
/// plane offsets as the camera reports them), lent by reference or copied into a pool.
struct LibCameraFrameReader: Sendable {
    let pixelFormat: PixelFormat
    let width: Int
    let height: Int
    let stride: Int
    let frameDuration: MediaTime
    private let pool: PixelBufferPool

    /// Fewer queued requests than this and a frame is copied, so the camera keeps buffers.
    static let minimumQueued = 2

    init(_ configured: ck_lc_configured, frameDuration: MediaTime, deviceID: String) throws(CaptureError) {
        guard let format = LibCameraFormats.pixelFormat(drm: configured.fourcc) else {
            throw CaptureError(.unsupportedFormat, "the camera chose a pixel format CaptureKit cannot take (DRM \(configured.fourcc))", deviceID: deviceID)
        }
        pixelFormat = format
        width = Int(configured.width)
        height = Int(configured.height)
        stride = max(Int(configured.stride), format.minimumBytesPerRow(plane: 0, width: width))
        self.frameDuration = frameDuration
        pool = try PixelBufferPool(width: width, height: height, pixelFormat: format, maximumIdleBuffers: 4)
    }

    /// The planes of `frame` relative to its mapping: the camera's plane offsets when it gives
    /// one per plane, else planes one after another at the stride (chroma rows scaled).
    func planes(_ frame: ck_lc_frame) -> [PixelBuffer.Plane] {
        let offsets: [UInt32] = Self.array(frame.plane_offset, count: Int(frame.plane_count))
        var next = offsets.first.map(Int.init) ?? 0
        return (0..<pixelFormat.planeCount).map { plane in
            let bytesPerRow = stride * pixelFormat.minimumBytesPerRow(plane: plane, width: width) / pixelFormat.minimumBytesPerRow(plane: 0, width: width)
            let rows = pixelFormat.rowCount(plane: plane, height: height)
            let offset = plane < offsets.count && pixelFormat.planeCount == offsets.count ? Int(offsets[plane]) : next
            next = offset + bytesPerRow * rows
            return PixelBuffer.Plane(offset: offset, bytesPerRow: bytesPerRow, rowCount: rows)
        }
    }

    /// The frame as a sample, or nil when it failed, is short, or no memory is left for a copy.
    func read(_ frame: ck_lc_frame, from session: LibCameraSession) -> SampleBuffer? {
        let index = Int(frame.index)
        guard frame.status == 0, let data = frame.data else {
            session.takeBack(index)
            return nil
        }
        let planes = planes(frame)
        let end = planes.enumerated().map { index, plane in
            plane.offset + plane.bytesPerRow * (plane.rowCount - 1) + pixelFormat.minimumBytesPerRow(plane: index, width: width)
        }.max() ?? 0
        guard end <= Int(frame.mapped_length) else {
            session.takeBack(index)
            return nil
        }
        let buffer: PixelBuffer
        if session.queuedCount >= Self.minimumQueued {
            let storage = MediaStorage(lentBy: session, tag: index, bytes: UnsafeMutableRawPointer(data), byteCount: Int(frame.mapped_length))
            let dma = frame.dma_fd >= 0
                ? DMABuffer(fileDescriptor: frame.dma_fd, length: Int(frame.mapped_length),
                            planes: planes.map { DMABuffer.Plane(offset: $0.offset, bytesPerRow: $0.bytesPerRow, length: $0.bytesPerRow * $0.rowCount) })
                : nil
            buffer = PixelBuffer(width: width, height: height, pixelFormat: pixelFormat, planes: planes, storage: storage, dmaBuffer: dma)
        } else {
            defer { session.takeBack(index) }
            guard let copy = try? pool.makeBuffer() else { return nil }
            for (plane, layout) in planes.enumerated() {
                let rowBytes = pixelFormat.minimumBytesPerRow(plane: plane, width: width)
                let target = copy.bytesPerRow(ofPlane: plane)
                copy.withUnsafeMutableBytes(ofPlane: plane) { destination in
                    guard let base = destination.baseAddress else { return }
                    for row in 0..<layout.rowCount {
                        memcpy(base + row * target, data + layout.offset + row * layout.bytesPerRow, rowBytes)
                    }
                }
            }
            buffer = copy
        }
        return SampleBuffer(media: .video(buffer), presentationTimeStamp: MediaTime(value: Int64(frame.timestamp_ns), timescale: 1_000_000_000),
                            duration: frameDuration, sequenceNumber: UInt64(frame.sequence))
    }

    /// The libcamera control ids of the frame's metadata.
    static func ids(_ frame: ck_lc_frame) -> [UInt32] { array(frame.metadata_id, count: Int(frame.metadata_count)) }
    /// Their values, in the same order.
    static func values(_ frame: ck_lc_frame) -> [Double] { array(frame.metadata_value, count: Int(frame.metadata_count)) }

    /// The first `count` elements of a C array imported as a tuple.
    private static func array<Tuple, Element>(_ tuple: Tuple, count: Int) -> [Element] {
        withUnsafeBytes(of: tuple) { bytes in Array(bytes.bindMemory(to: Element.self).prefix(count)) }
    }
}
