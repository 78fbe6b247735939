import Glibc

/// An uncompressed video frame: one to three planes of pixel data, as Core Video's
/// `CVPixelBuffer`.
///
/// Buffers handed out by a capture session are shared by reference between every output and
/// must be treated as read-only; write only into buffers you made yourself, before sharing them.
///
/// ```swift
/// let buffer = try PixelBuffer(width: 640, height: 480, pixelFormat: .nv12)
/// buffer.withUnsafeMutableBytes(ofPlane: 0) { luma in luma.initializeMemory(as: UInt8.self, repeating: 16) }
/// ```
public final class PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The memory layout.
    public let pixelFormat: PixelFormat

    /// Where each plane starts in the storage and how long its rows are.
    package struct Plane: Sendable, Equatable {
        package var offset: Int
        package var bytesPerRow: Int
        package var rowCount: Int

        package init(offset: Int, bytesPerRow: Int, rowCount: Int) {
            self.offset = offset
            self.bytesPerRow = bytesPerRow
            self.rowCount = rowCount
        }
    }

    package let planes: [Plane]
    package let storage: MediaStorage

    /// The driver buffer this frame lies in, exported as a DMA-BUF (`VIDIOC_EXPBUF`); nil for
    /// frames that are copies or conversions, and for drivers that cannot export. The file
    /// descriptor is borrowed: valid while this buffer is alive; `dup` it to keep it.
    public let dmaBuffer: DMABuffer?

    /// Allocates a buffer with rows padded to 64 bytes (what SIMD converters like best).
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat) throws(CaptureError) {
        let planes = try Self.layout(width: width, height: height, pixelFormat: pixelFormat, rowAlignment: 64)
        let storage = try MediaStorage.allocate(byteCount: Self.byteCount(of: planes))
        self.init(width: width, height: height, pixelFormat: pixelFormat, planes: planes, storage: storage)
    }

    package init(width: Int, height: Int, pixelFormat: PixelFormat, planes: [Plane], storage: MediaStorage, dmaBuffer: DMABuffer? = nil) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.planes = planes
        self.storage = storage
        self.dmaBuffer = dmaBuffer
    }

    /// The plane offsets and strides of a frame, or `.invalidArgument` for impossible sizes.
    package static func layout(width: Int, height: Int, pixelFormat: PixelFormat, rowAlignment: Int) throws(CaptureError) -> [Plane] {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw .invalidArgument("frame size \(width)x\(height) is out of range (1...16384)")
        }
        var offset = 0
        return (0..<pixelFormat.planeCount).map { index in
            let minimum = pixelFormat.minimumBytesPerRow(plane: index, width: width)
            let stride = (minimum + rowAlignment - 1) / rowAlignment * rowAlignment
            let plane = Plane(offset: offset, bytesPerRow: stride, rowCount: pixelFormat.rowCount(plane: index, height: height))
            offset += stride * plane.rowCount
            return plane
        }
    }

    package static func byteCount(of planes: [Plane]) -> Int {
        planes.last.map { $0.offset + $0.bytesPerRow * $0.rowCount } ?? 0
    }

    /// The number of planes.
    public var planeCount: Int { planes.count }

    /// The stride of a plane: bytes from the start of one row to the next (may include padding).
    public func bytesPerRow(ofPlane plane: Int) -> Int { planes[plane].bytesPerRow }

    /// The number of rows of a plane (half the height for 4:2:0 chroma).
    public func rowCount(ofPlane plane: Int) -> Int { planes[plane].rowCount }

    /// Reads one plane, rows included with their padding.
    public func withUnsafeBytes<R, E: Error>(ofPlane plane: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let p = planes[plane]
        return try body(UnsafeRawBufferPointer(start: storage.bytes + p.offset, count: p.bytesPerRow * p.rowCount))
    }

    /// Writes one plane. Only for buffers not yet shared with anyone else.
    public func withUnsafeMutableBytes<R, E: Error>(ofPlane plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let p = planes[plane]
        return try body(UnsafeMutableRawBufferPointer(start: storage.bytes + p.offset, count: p.bytesPerRow * p.rowCount))
    }

    /// The pixels without row padding, planes one after another (the layout of a `.yuv`/`.y4m` frame).
    public func packedBytes() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(pixelFormat.packedFrameSize(width: width, height: height))
        for (index, plane) in planes.enumerated() {
            let rowBytes = pixelFormat.minimumBytesPerRow(plane: index, width: width)
            for row in 0..<plane.rowCount {
                let start = storage.bytes + plane.offset + row * plane.bytesPerRow
                out.append(contentsOf: UnsafeRawBufferPointer(start: start, count: rowBytes))
            }
        }
        return out
    }

    /// Whether two buffers hold the same pixels (padding ignored).
    public func hasSamePixels(as other: PixelBuffer) -> Bool {
        guard width == other.width, height == other.height, pixelFormat == other.pixelFormat else { return false }
        for (index, plane) in planes.enumerated() {
            let rowBytes = pixelFormat.minimumBytesPerRow(plane: index, width: width)
            let otherPlane = other.planes[index]
            for row in 0..<plane.rowCount {
                let a = storage.bytes + plane.offset + row * plane.bytesPerRow
                let b = other.storage.bytes + otherPlane.offset + row * otherPlane.bytesPerRow
                if memcmp(a, b, rowBytes) != 0 { return false }
            }
        }
        return true
    }
}
