import Synchronization

/// The driver buffers of one stream, memory-mapped, and who holds each: the kernel (queued
/// for filling) or CaptureKit's consumers (a frame handed out by reference). A buffer goes
/// back to the kernel when the last consumer lets go of its frame. The node is closed and the
/// buffers unmapped only when the stream has stopped and no frame is held any more, so a
/// consumer never reads unmapped memory.
final class V4L2BufferRing: Sendable {
    struct Buffer: @unchecked Sendable {
        let index: Int
        let base: UnsafeMutableRawPointer
        let length: Int
    }

    let io: any V4L2DeviceIO
    let bufferType: V4L2BufferType
    let buffers: [Buffer]

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
            for buffer in mapped { try io.queueBuffer(index: buffer.index, bufferType: bufferType) }
        } catch {
            for buffer in mapped { io.unmap(buffer.base, length: buffer.length) }
            _ = try? io.requestBuffers(count: 0, bufferType: bufferType)
            io.close()
            throw error
        }
        buffers = mapped
        state.withLock { $0.queued = Set(mapped.map(\.index)) }
    }

    /// How many buffers the kernel has to fill now.
    var queuedCount: Int { state.withLock { $0.queued.count } }

    /// Notes that the kernel handed `index` back.
    func didDequeue(_ index: Int) {
        _ = state.withLock { $0.queued.remove(index) }
    }

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
        for buffer in buffers { io.unmap(buffer.base, length: buffer.length) }
        io.close()
    }
}
