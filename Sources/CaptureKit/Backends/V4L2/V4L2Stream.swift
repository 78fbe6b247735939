import Glibc

/// A running V4L2 capture: one thread waits in poll(2) on the node, dequeues every filled
/// buffer, and hands frames to the sink as soon as they arrive, so consumers always get the
/// newest frame the driver has. Stops with VIDIOC_STREAMOFF; the node closes once no frame is
/// held any more (see ``V4L2BufferRing``).
final class V4L2Stream: DeviceStream {
    private let ring: V4L2BufferRing
    private let worker: WorkerThread

    /// How long one wait lasts: bounds how long `stop()` takes.
    static let pollMilliseconds: Int32 = 50
    /// How many error wake-ups without a buffer or an error code mean the stream is dead.
    static let maximumIdleErrors = 40

    init(ring: V4L2BufferRing, reader: V4L2FrameReader, sink: StreamSink, nodeExists: @escaping @Sendable (String) -> Bool,
         onDeviceGone: @escaping @Sendable () -> Void) {
        self.ring = ring
        let box = ReaderBox(reader)
        worker = WorkerThread(name: "CaptureKit.v4l2") { thread in
            Self.run(thread, ring: ring, reader: box.reader, sink: sink, nodeExists: nodeExists, onDeviceGone: onDeviceGone)
        }
    }

    func stop() {
        worker.stop()
        ring.stop()
    }

    /// Moves the reader (used by the stream thread only) onto that thread.
    private final class ReaderBox: @unchecked Sendable {
        let reader: V4L2FrameReader
        init(_ reader: V4L2FrameReader) { self.reader = reader }
    }

    private static func run(_ thread: WorkerThread, ring: V4L2BufferRing, reader: V4L2FrameReader, sink: StreamSink,
                            nodeExists: (String) -> Bool, onDeviceGone: @Sendable () -> Void) {
        let io = ring.io
        var idleErrors = 0
        do throws(CaptureError) {
            while !thread.isStopping {
                let ready = try io.poll(timeoutMilliseconds: pollMilliseconds)
                if ready == .timeout { continue }
                var dequeued = false
                while !thread.isStopping, let buffer = try io.dequeueBuffer(bufferType: ring.bufferType) {
                    dequeued = true
                    let outcome = reader.read(buffer)
                    if outcome.droppedCount > 0 { sink.event(.droppedFrames(count: outcome.droppedCount)) }
                    if let sample = outcome.sample { sink.deliver(sample) }
                }
                guard ready == .failed, !dequeued else {
                    idleErrors = 0
                    continue
                }
                // An error wake-up with nothing to dequeue: the node is gone, or the queue ran
                // dry for a moment (every buffer held), or the stream broke for good.
                if !nodeExists(io.path) {
                    throw CaptureError(.deviceDisconnected, "\(io.path) went away while streaming", errno: ENODEV, operation: "poll", path: io.path)
                }
                idleErrors += 1
                if idleErrors > maximumIdleErrors {
                    throw CaptureError(.systemCallFailed, "\(io.path) keeps reporting errors without delivering frames", operation: "poll", path: io.path)
                }
                MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000)
            }
        } catch {
            guard !thread.isStopping else { return }
            if error.code == .deviceDisconnected {
                onDeviceGone()
                sink.event(.disconnected)
            } else {
                sink.event(.failed(error))
            }
        }
    }
}
