import Glibc
import Synchronization

/// The driver buffers of one stream, memory-mapped, and who holds each: the kernel (queued
/// for filling) or CaptureKit's consumers (a frame handed out by reference). A buffer goes
/// back to the kernel when the last consumer lets go of its frame. The node is closed and the
/// buffers unmapped only when the stream has stopped and no frame is held any more, so a
/// consumer never reads unmapped memory. Where the driver can (vb2 drivers), each buffer is
/// also exported as a DMA-BUF (VIDIOC_EXPBUF); those descriptors live exactly as long as the
/// mappings.
final class V4L2BufferRing: StorageLender {
    struct Buffer: @unchecked Sendable {
        // Unchecked Sendable: a driver buffer's mapping: the pointer is fixed for the ring's life.
        let index: Int
        let base: UnsafeMutableRawPointer
        let length: Int
    }

    let io: any V4L2DeviceIO
    let bufferType: V4L2BufferType
    let buffers: [Buffer]
    /// The DMA-BUF descriptor of each buffer, by index; empty when the driver cannot export.
    let exportedDescriptors: [Int32]

    /// Whether the driver exported the buffers as DMA-BUFs (`VIDIOC_EXPBUF`).
    var isDMABufExportSupported: Bool { !exportedDescriptors.isEmpty }

    private struct State {
        var queued: Set<Int> = []
        var stopped = false
    }
    private let state = Mutex(State())

    /// Requests `count` buffers, maps them and queues them all. On failure everything made so
    /// far is undone (and `io` closed).
    init(io: any V4L2DeviceIO, bufferType: V4L2BufferType, count: Int) throws(CaptureError) {
        self.io = io
        self.bufferType = bufferType
        var mapped: [Buffer] = []
        var descriptors: [Int32] = []
        do throws(CaptureError) {
            let granted = try io.requestBuffers(count: count, bufferType: bufferType)
            guard granted >= 2 else {
                throw CaptureError(.outOfMemory, "the driver of \(io.path) gave \(granted) buffers; streaming needs at least 2",
                                   operation: "VIDIOC_REQBUFS", path: io.path)
            }
            for index in 0..<granted {
                let location = try io.queryBuffer(index: index, bufferType: bufferType)
                mapped.append(Buffer(index: index, base: try io.map(location), length: location.length))
            }
            descriptors = try Self.export(mapped.count, io: io, bufferType: bufferType)
            for buffer in mapped { try io.queueBuffer(index: buffer.index, bufferType: bufferType) }
        } catch {
            for descriptor in descriptors { io.closeExportedBuffer(descriptor) }
            for buffer in mapped { io.unmap(buffer.base, length: buffer.length) }
            _ = try? io.requestBuffers(count: 0, bufferType: bufferType)
            io.close()
            throw error
        }
        buffers = mapped
        exportedDescriptors = descriptors
        state.withLock { $0.queued = Set(mapped.map(\.index)) }
    }

    /// Exports `count` buffers as DMA-BUFs; none (and no error) when the driver cannot
    /// (`ENOTTY`, `EINVAL`). On any other failure the ones already exported are closed.
    private static func export(_ count: Int, io: any V4L2DeviceIO, bufferType: V4L2BufferType) throws(CaptureError) -> [Int32] {
        var descriptors: [Int32] = []
        for index in 0..<count {
            do throws(CaptureError) {
                descriptors.append(try io.exportBuffer(index: index, bufferType: bufferType))
            } catch {
                for descriptor in descriptors { io.closeExportedBuffer(descriptor) }
                if error.errno == ENOTTY || error.errno == EINVAL { return [] }
                throw error
            }
        }
        return descriptors
    }

    /// The DMA-BUF descriptor of buffer `index`, or nil when the buffers were not exported.
    func exportedDescriptor(of index: Int) -> Int32? {
        exportedDescriptors.indices.contains(index) ? exportedDescriptors[index] : nil
    }

    /// How many buffers the kernel has to fill now.
    var queuedCount: Int { state.withLock { $0.queued.count } }

    /// Notes that the kernel handed `index` back.
    func didDequeue(_ index: Int) {
        _ = state.withLock { $0.queued.remove(index) }
    }

    /// A lent frame's buffer `tag` is free again: requeued.
    func takeBack(_ tag: Int) { requeue(tag) }

    /// Gives `index` back to the kernel, unless the stream has stopped. A failure here (the
    /// device vanished) is noticed by the stream thread's next poll, so it is not reported twice.
    func requeue(_ index: Int) {
        state.withLock { state in
            guard !state.stopped, !state.queued.contains(index) else { return }
            if (try? io.queueBuffer(index: index, bufferType: bufferType)) != nil { state.queued.insert(index) }
        }
    }

    /// Stops the stream (VIDIOC_STREAMOFF); buffers still held stay mapped until released.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.queued.removeAll()
        }
        try? io.streamOff(bufferType: bufferType)
    }

    deinit {
        for descriptor in exportedDescriptors { io.closeExportedBuffer(descriptor) }
        for buffer in buffers { io.unmap(buffer.base, length: buffer.length) }
        io.close()
    }
}
