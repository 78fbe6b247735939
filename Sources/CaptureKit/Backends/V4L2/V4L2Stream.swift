import Glibc
import Synchronization

/// A running V4L2 capture: one thread waits in poll(2) on the node, dequeues every filled
/// buffer, and hands frames to the sink as soon as they arrive, so consumers always get the
/// newest frame the driver has. Stops with VIDIOC_STREAMOFF; the node closes once no frame is
/// held any more (see ``V4L2BufferRing``).
///
/// The stream outlives its camera: when the node goes away (ENODEV, or the node vanished) — or,
/// with a stall timeout, delivers nothing for that long — it reports `.disconnected`, lets go
/// of the node (drivers such as vivid return only once every handle is closed, a module can be
/// unloaded only then) and asks `reopen` every ``returnPollMilliseconds`` until the same camera
/// is back; then it streams again with the same configuration and reports `.reconnected` with
/// the first frame, the frames missed meanwhile reported as skipped and the frame numbers
/// running on. A reopened camera that stays silent is let go again without a second loss.
final class V4L2Stream: DeviceStream {
    /// An open, streaming node.
    struct Capture {
        var ring: V4L2BufferRing
        var reader: V4L2FrameReader
    }

    /// Opens the camera again once it is back: nil while it is not, an error when it is back
    /// but cannot capture with the stream's configuration.
    typealias Reopen = @Sendable () throws(CaptureError) -> Capture?

    private let worker: WorkerThread
    private let current = CurrentRing()

    /// The ring in use, so `stop()` reaches the latest one, and whether `stop()` came.
    private final class CurrentRing: Sendable {
        let state = Mutex<(ring: V4L2BufferRing?, stopped: Bool)>((nil, false))
    }

    /// How long one wait lasts: bounds how long `stop()` takes.
    static let pollMilliseconds: Int32 = 50
    /// How many error wake-ups without a buffer or an error code mean the stream is dead.
    static let maximumIdleErrors = 40

    init(first: Capture, frameDuration: MediaTime, stallTimeout: Duration?, sink: StreamSink,
         nodeExists: @escaping @Sendable (String) -> Bool, reopen: @escaping Reopen,
         onDeviceGone: @escaping @Sendable () -> Void, onDeviceBack: @escaping @Sendable () -> Void) {
        let current = self.current
        current.state.withLock { $0.ring = first.ring }
        let box = ThreadHandOff(first)
        let limits = Limits(stallNanoseconds: stallTimeout?.nanoseconds, nodeExists: nodeExists)
        worker = WorkerThread(name: "CaptureKit.v4l2") { thread in
            var next = box.take()
            var numbering = FrameRenumbering(frameDuration: frameDuration.nanoseconds ?? 0)
            // Whether the capture in `next` is a reopened camera: reported back with its first frame.
            var returning = false
            while !thread.isStopping, next != nil {
                // The capture moves into `stream`, which stops it: once it returns, no reference
                // to the old ring is left here, so its descriptor closes when consumers let go.
                let announce: (() -> Void)? = returning ? {
                    onDeviceBack()
                    sink.event(.reconnected)
                } : nil
                guard case .lost(let delivered) = Self.stream(thread, &next, sink: sink, numbering: &numbering,
                                                               limits: limits, onFirstFrame: announce) else { return }
                // Gone: wait for the camera to come back.
                if !returning || delivered {
                    onDeviceGone()
                    sink.event(.disconnected)
                }
                current.state.withLock { $0.ring = nil }
                guard let back = Self.waitForReturn(thread, sink: sink, reopen: reopen) else { return }
                let stopped = current.state.withLock { state -> Bool in
                    if !state.stopped { state.ring = back.ring }
                    return state.stopped
                }
                if stopped {
                    back.ring.stop()
                    return
                }
                next = back
                numbering.resume()
                returning = true
            }
        }
    }

    func stop() {
        worker.stop()
        let ring = current.state.withLock { state -> V4L2BufferRing? in
            state.stopped = true
            return state.ring
        }
        ring?.stop()
    }

    /// When a stream gives up on its node, besides being stopped or failing.
    struct Limits: Sendable {
        /// Nothing dequeued for this long is a loss (nil: never).
        let stallNanoseconds: Int64?
        /// Whether the node file is still there.
        let nodeExists: @Sendable (String) -> Bool
    }

    /// How `stream` ended.
    enum Ending {
        /// Stopped, or failed (reported).
        case ended
        /// The node went away or stalled; the ring was stopped and let go. `delivered`: whether
        /// any frame came from it.
        case lost(delivered: Bool)
    }

    /// Takes the capture out of `next` and streams from it until stopped, failed (reported) or
    /// lost; `onFirstFrame` runs before the first frame is delivered.
    private static func stream(_ thread: WorkerThread, _ next: inout Capture?, sink: StreamSink, numbering: inout FrameRenumbering,
                               limits: Limits, onFirstFrame: (() -> Void)?) -> Ending {
        guard let capture = next.take() else { return .ended }
        defer { capture.ring.stop() }
        let io = capture.ring.io
        var idleErrors = 0
        var delivered = false
        var lastBuffer = MonotonicClock.nanoseconds()
        do throws(CaptureError) {
            while !thread.isStopping {
                let ready = try io.poll(timeoutMilliseconds: pollMilliseconds)
                if ready != .timeout {
                    var dequeued = false
                    while !thread.isStopping, let buffer = try io.dequeueBuffer(bufferType: capture.ring.bufferType) {
                        dequeued = true
                        let outcome = capture.reader.read(buffer)
                        if outcome.droppedCount > 0 { sink.event(.droppedFrames(count: outcome.droppedCount)) }
                        if let sample = outcome.sample {
                            if !delivered { onFirstFrame?() }
                            delivered = true
                            let (numbered, missed) = numbering.number(sample)
                            if missed > 0 { sink.event(.droppedFrames(count: missed)) }
                            sink.deliver(numbered)
                        }
                    }
                    if dequeued { lastBuffer = MonotonicClock.nanoseconds() }
                    if ready == .failed, !dequeued {
                        try noteIdleError(io, &idleErrors, limits: limits)
                    } else {
                        idleErrors = 0
                    }
                }
                if let stall = limits.stallNanoseconds, MonotonicClock.nanoseconds() - lastBuffer > stall {
                    CaptureLog.emit(.warning, "capturekit", "\(io.path) delivered no frame for \(Double(stall) / 1e9) s: letting go of it until it delivers again")
                    return .lost(delivered: delivered)
                }
            }
        } catch {
            guard !thread.isStopping else { return .ended }
            if error.code == .deviceDisconnected { return .lost(delivered: delivered) }
            sink.event(.failed(error))
        }
        return .ended
    }

    /// An error wake-up with nothing to dequeue: the node is gone (`.deviceDisconnected`), or
    /// the queue ran dry for a moment (every buffer held), or — after too many — the stream
    /// broke for good.
    private static func noteIdleError(_ io: any V4L2DeviceIO, _ idleErrors: inout Int, limits: Limits) throws(CaptureError) {
        if !limits.nodeExists(io.path) {
            throw CaptureError(.deviceDisconnected, "\(io.path) went away while streaming", errno: ENODEV, operation: "poll", path: io.path)
        }
        idleErrors += 1
        if idleErrors > maximumIdleErrors {
            throw CaptureError(.systemCallFailed, "\(io.path) keeps reporting errors without delivering frames", operation: "poll", path: io.path)
        }
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000)
    }
}
