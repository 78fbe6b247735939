/// A frame's memory as a Linux DMA-BUF file descriptor, for handing a camera frame to a GPU
/// (EGL/Vulkan import), a hardware encoder or another process without copying it.
///
/// Only frames lent by reference from a driver buffer carry one (a V4L2 camera's, or a
/// PipeWire camera's whose node exports DMA-BUFs), and it is lent only for the length of
/// ``PixelBuffer/withDMABuffer(_:)``'s closure: the descriptor is the capture stream's (for
/// PipeWire, the frame's own duplicate), the driver refills its buffer once the frame is let go,
/// and the descriptor is closed (its number then free for any other file) once the stream is
/// torn down (for PipeWire, once the frame is let go). The type cannot be copied, so no value of
/// it outlives that closure; `dup(2)` ``fileDescriptor`` inside it to keep the descriptor open,
/// and keep the ``PixelBuffer`` to keep the pixels. It was exported read-only
/// (`O_RDONLY | O_CLOEXEC`), so map it with `PROT_READ` only.
///
/// ```swift
/// let frame = sampleBuffer.pixelBuffer!
/// let handed = frame.withDMABuffer { dma in (fd: dup(dma.fileDescriptor), planes: dma.planes) }
/// ```
public struct DMABuffer: ~Copyable, Sendable {
    /// Where one plane of the frame lies inside the DMA-BUF.
    public struct Plane: Sendable, Hashable {
        /// Byte offset of the plane's first row from the start of the DMA-BUF.
        public let offset: Int
        /// Bytes from one row to the next.
        public let bytesPerRow: Int
        /// Bytes the plane spans (`bytesPerRow` × its row count).
        public let length: Int

        package init(offset: Int, bytesPerRow: Int, length: Int) {
            self.offset = offset
            self.bytesPerRow = bytesPerRow
            self.length = length
        }
    }

    /// The DMA-BUF file descriptor, valid inside ``PixelBuffer/withDMABuffer(_:)`` only.
    public let fileDescriptor: Int32
    /// The size of the whole driver buffer in bytes (at least the frame's size).
    public let length: Int
    /// The frame's planes, in the order of ``PixelBuffer``'s planes.
    public let planes: [Plane]

    package init(fileDescriptor: Int32, length: Int, planes: [Plane]) {
        self.fileDescriptor = fileDescriptor
        self.length = length
        self.planes = planes
    }
}
