/// Hands out pixel buffers of one size and format, reusing their memory once every holder has
/// let go, so steady-state capture allocates no frame memory (`CVPixelBufferPool`).
///
/// ```swift
/// let pool = try PixelBufferPool(width: 1280, height: 720, pixelFormat: .nv12)
/// let frame = try pool.makeBuffer { _, bytes, _ in bytes.initializeMemory(as: UInt8.self, repeating: 128) }
/// ```
public final class PixelBufferPool: Sendable {
    /// Width of every buffer.
    public let width: Int
    /// Height of every buffer.
    public let height: Int
    /// Format of every buffer.
    public let pixelFormat: PixelFormat
    private let planes: [PixelBuffer.Plane]
    private let storage: StoragePool

    /// A pool that keeps up to `maximumIdleBuffers` free buffers for reuse.
    public init(width: Int, height: Int, pixelFormat: PixelFormat, maximumIdleBuffers: Int = 8) throws(CaptureError) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        planes = try PixelBuffer.layout(width: width, height: height, pixelFormat: pixelFormat, rowAlignment: 64)
        storage = StoragePool(blockSize: PixelBuffer.byteCount(of: planes), maximumIdle: maximumIdleBuffers)
    }

    /// A buffer with undefined contents: from the pool when one is free, otherwise new. To
    /// write its pixels, use ``makeBuffer(fillingPlanes:)``.
    public func makeBuffer() throws(CaptureError) -> PixelBuffer {
        PixelBuffer(width: width, height: height, pixelFormat: pixelFormat, planes: planes, storage: try storage.take())
    }

    /// A buffer as ``makeBuffer()`` gives, filled by `fill` before anyone else can hold it
    /// (see ``PixelBuffer/PlaneFiller``).
    public func makeBuffer(fillingPlanes fill: PixelBuffer.PlaneFiller) throws(CaptureError) -> PixelBuffer {
        let buffer = try makeBuffer()
        try buffer.fillPlanes(fill)
        return buffer
    }
}
