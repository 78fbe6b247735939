import Glibc

/// An uncompressed video frame: one to three planes of pixel data, as Core Video's
/// `CVPixelBuffer`.
///
/// Buffers handed out by a capture session are shared by reference between every output (a
/// camera's frame may be the driver's own buffer), so the public API only reads them. An
/// application writes pixels only while making a buffer, in the closure of
/// ``init(width:height:pixelFormat:fillingPlanes:)`` or ``PixelBufferPool/makeBuffer(fillingPlanes:)``,
/// before anyone else can hold it:
///
/// ```swift
/// let black = try PixelBuffer(width: 640, height: 480, pixelFormat: .nv12) { plane, bytes, _ in
///     bytes.initializeMemory(as: UInt8.self, repeating: plane == 0 ? 16 : 128)
/// }
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

    /// The driver buffer this frame lies in, exported as a DMA-BUF (`VIDIOC_EXPBUF`, directly or
    /// through PipeWire); lent only inside ``withDMABuffer(_:)``.
    private let dmaBuffer: DMABuffer?

    /// What ``init(width:height:pixelFormat:fillingPlanes:)`` and
    /// ``PixelBufferPool/makeBuffer(fillingPlanes:)`` call once per plane, in order: the plane's
    /// index, its bytes (every row with its padding) and its stride (bytes from one row to the
    /// next). The pointer is valid only during the call.
    public typealias PlaneFiller = (_ plane: Int, _ bytes: UnsafeMutableRawBufferPointer, _ bytesPerRow: Int) throws(CaptureError) -> Void

    /// Allocates a buffer with rows padded to 64 bytes (what SIMD converters like best); its
    /// contents are undefined. To write its pixels, make it with
    /// ``init(width:height:pixelFormat:fillingPlanes:)`` instead.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat) throws(CaptureError) {
        let planes = try Self.layout(width: width, height: height, pixelFormat: pixelFormat, rowAlignment: 64)
        let storage = try MediaStorage.allocate(byteCount: Self.byteCount(of: planes))
        self.init(width: width, height: height, pixelFormat: pixelFormat, planes: planes, storage: storage)
    }

    /// Allocates a buffer as ``init(width:height:pixelFormat:)`` does and fills it: `fill` is
    /// called once per plane (see ``PlaneFiller``). The only time an application writes a
    /// buffer's pixels, as afterwards it may be shared; an error `fill` throws is rethrown.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat, fillingPlanes fill: PlaneFiller) throws(CaptureError) {
        try self.init(width: width, height: height, pixelFormat: pixelFormat)
        try fillPlanes(fill)
    }

    package init(width: Int, height: Int, pixelFormat: PixelFormat, planes: [Plane], storage: MediaStorage, dmaBuffer: consuming DMABuffer? = nil) {
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

    /// Writes one plane: for the library's own buffers (converters, decoders, pools, backends)
    /// before it shares them. Applications write only through ``PlaneFiller``, so no public
    /// call writes a delivered frame.
    package func withUnsafeMutableBytes<R, E: Error>(ofPlane plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let p = planes[plane]
        return try body(UnsafeMutableRawBufferPointer(start: storage.bytes + p.offset, count: p.bytesPerRow * p.rowCount))
    }

    /// Calls `fill` on each plane in turn, for the filling initializer and pool.
    package func fillPlanes(_ fill: PlaneFiller) throws(CaptureError) {
        for index in planes.indices {
            try withUnsafeMutableBytes(ofPlane: index) { (bytes) throws(CaptureError) in try fill(index, bytes, planes[index].bytesPerRow) }
        }
    }

    /// Whether the frame lies in a driver buffer exported as a DMA-BUF (`VIDIOC_EXPBUF`, directly
    /// or through PipeWire): false for copies and conversions, and on drivers that cannot export.
    public var hasDMABuffer: Bool { dmaBuffer != nil }

    /// Lends the frame's DMA-BUF to `body` and returns what it returns, or nil (without calling
    /// it) when ``hasDMABuffer`` is false. The ``DMABuffer`` cannot leave the closure; `dup(2)`
    /// its descriptor to keep it (see ``DMABuffer``).
    public func withDMABuffer<R, E: Error>(_ body: (borrowing DMABuffer) throws(E) -> R) throws(E) -> R? {
        switch dmaBuffer {
        case .some(let buffer): return try body(buffer)
        case .none: return nil
        }
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
