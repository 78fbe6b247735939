import Glibc

/// Turns dequeued driver buffers into sample buffers on the stream thread: raw frames are
/// handed out by reference to the mapped buffer (requeued when the last consumer lets go),
/// or copied into a pooled buffer when consumers already hold so many that the driver would
/// run short (lent frames carry the buffer's DMA-BUF when the driver exported it); MJPEG
/// frames are decoded, CSI-2 packed Bayer frames unpacked, and their buffers requeued at once.
/// Frames the driver flagged as damaged, frames shorter than their format, and JPEG frames
/// that do not decode are dropped and counted; so are the frames the driver skipped (sequence
/// gaps). Frames are numbered by ``V4L2SequenceTracker``: the driver's count, made to run on by
/// one per frame.
final class V4L2FrameReader {
    /// Why a frame was not delivered.
    enum DropReason: Sendable, Equatable {
        case skippedByDriver(count: Int)
        case errorFlag
        case shortBuffer(bytes: Int, expected: Int)
        case corruptJPEG(String)
        /// The frame could not be copied out of the driver's buffer: no memory for the copy.
        case noMemoryForCopy
    }

    /// What became of one dequeued buffer.
    struct Outcome {
        /// The frame to deliver, if any.
        var sample: SampleBuffer?
        /// What was lost, in order: skipped frames before this one, then this one.
        var drops: [DropReason] = []

        /// How many frames the drops stand for.
        var droppedCount: Int {
            drops.reduce(0) { total, reason in
                if case .skippedByDriver(let count) = reason { return total + count }
                return total + 1
            }
        }
    }

    private let ring: V4L2BufferRing
    private let layout: V4L2FrameLayout?
    private let decoder: MJPEGDecoder?
    private let copyPool: PixelBufferPool?
    /// The planes a lent frame's DMA-BUF holds: the layout's, computed once.
    private let dmaPlanes: [DMABuffer.Plane]
    /// Holds each camera JPEG beside its decoded frame (for MJPEG recordings, which store it).
    private let jpegPool: StoragePool?
    private let frameDuration: MediaTime
    private var sequence = V4L2SequenceTracker()
    /// How many buffers the kernel keeps to fill before frames are copied instead of lent.
    let minimumQueued: Int

    init(ring: V4L2BufferRing, format: V4L2PixFormat, frameDuration: MediaTime, minimumQueued: Int = 2) throws(CaptureError) {
        self.ring = ring
        self.frameDuration = frameDuration
        self.minimumQueued = minimumQueued
        if format.fourCC.isJPEG {
            decoder = try MJPEGDecoder(width: format.width, height: format.height)
            jpegPool = StoragePool(blockSize: ring.buffers.map(\.length).max() ?? 0, maximumIdle: 4)
            layout = nil
            copyPool = nil
            dmaPlanes = []
        } else {
            let layout = try V4L2FrameLayout(format)
            self.layout = layout
            copyPool = try PixelBufferPool(width: layout.width, height: layout.height, pixelFormat: layout.pixelFormat, maximumIdleBuffers: 4)
            dmaPlanes = layout.planes.map { DMABuffer.Plane(offset: $0.offset, bytesPerRow: $0.bytesPerRow, length: $0.bytesPerRow * $0.rowCount) }
            decoder = nil
            jpegPool = nil
        }
    }

    /// Reads `buffer`, which the kernel just handed back.
    func read(_ buffer: V4L2DequeuedBuffer) -> Outcome {
        ring.didDequeue(buffer.index)
        var outcome = Outcome()
        let time = buffer.monotonicTimestamp ?? MonotonicClock.nanoseconds()
        let step = sequence.record(buffer.sequence, at: time, frameDuration: frameDuration.nanoseconds ?? 0)
        if step.skipped > 0 { outcome.drops.append(.skippedByDriver(count: step.skipped)) }
        guard buffer.index >= 0, buffer.index < ring.buffers.count else {
            outcome.drops.append(.shortBuffer(bytes: 0, expected: 1))
            return outcome
        }
        let mapped = ring.buffers[buffer.index]
        if buffer.hasError {
            ring.requeue(buffer.index)
            outcome.drops.append(.errorFlag)
            return outcome
        }
        let pts = MediaTime(value: time, timescale: 1_000_000_000)
        let bytes = UnsafeRawBufferPointer(start: mapped.base, count: min(max(buffer.bytesUsed, 0), mapped.length))
        let frame: PixelBuffer
        var compressed: CompressedFrame?
        if let decoder, let jpegPool {
            defer { ring.requeue(buffer.index) }
            do {
                frame = try decoder.decode(bytes)
                let storage = try jpegPool.take()
                if let source = bytes.baseAddress { storage.bytes.copyMemory(from: source, byteCount: bytes.count) }
                compressed = CompressedFrame(codec: .jpeg, storage: storage, byteCount: bytes.count)
            } catch {
                outcome.drops.append(.corruptJPEG(error.message))
                return outcome
            }
        } else if let layout, let copyPool {
            guard bytes.count >= layout.byteCount else {
                ring.requeue(buffer.index)
                outcome.drops.append(.shortBuffer(bytes: bytes.count, expected: layout.byteCount))
                return outcome
            }
            if layout.packedBits == nil, ring.queuedCount >= minimumQueued {
                let storage = MediaStorage(lentBy: ring, tag: buffer.index, bytes: mapped.base, byteCount: layout.byteCount)
                let dmaBuffer = ring.exportedDescriptor(of: buffer.index).map {
                    DMABuffer(fileDescriptor: $0, length: mapped.length, planes: dmaPlanes)
                }
                frame = PixelBuffer(width: layout.width, height: layout.height, pixelFormat: layout.pixelFormat, planes: layout.planes,
                                    storage: storage, dmaBuffer: dmaBuffer)
            } else {
                defer { ring.requeue(buffer.index) }
                guard let copy = try? copyPool.makeBuffer() else {
                    outcome.drops.append(.noMemoryForCopy)
                    return outcome
                }
                if let bits = layout.packedBits {
                    CSI2Packing.unpack(mapped.base, bytesPerRow: layout.planes[0].bytesPerRow, bits: bits, into: copy)
                } else {
                    Self.copy(from: mapped.base, layout: layout, into: copy)
                }
                frame = copy
            }
        } else {
            ring.requeue(buffer.index)
            return outcome
        }
        outcome.sample = SampleBuffer(media: .video(frame), presentationTimeStamp: pts, duration: frameDuration,
                                      sequenceNumber: step.number, compressedFrame: compressed)
        return outcome
    }

    private static func copy(from base: UnsafeMutableRawPointer, layout: V4L2FrameLayout, into frame: PixelBuffer) {
        for (index, plane) in layout.planes.enumerated() {
            let rowBytes = layout.pixelFormat.minimumBytesPerRow(plane: index, width: layout.width)
            let stride = frame.bytesPerRow(ofPlane: index)
            frame.withUnsafeMutableBytes(ofPlane: index) { destination in
                guard let target = destination.baseAddress else { return }
                for row in 0..<plane.rowCount {
                    memcpy(target + row * stride, base + plane.offset + row * plane.bytesPerRow, rowBytes)
                }
            }
        }
    }
}
