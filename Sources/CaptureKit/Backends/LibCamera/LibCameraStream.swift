internal import CLibCamera
import Synchronization

/// A running capture from a libcamera camera: a thread waits for completed requests and hands
/// each frame on by reference (the buffer's mapping, its DMA-BUF attached) — copied instead
/// when fewer than two requests would stay queued, so a consumer holding frames cannot starve
/// the camera. Timestamps are the sensor's (`SensorTimestamp`, else the buffer's), on the
/// monotonic clock; gaps in libcamera's frame sequence are reported as dropped.
///
/// When the camera goes away (`Camera::disconnected`, or one of its capture nodes vanished:
/// most pipeline handlers never report a loss) the stream reports `.disconnected`, lets go of
/// it, and waits for a camera of the same id to return; then it configures it as before and
/// reports `.reconnected`.
final class LibCameraStream: DeviceStream {
    private let worker: WorkerThread
    private let backend: LibCameraBackend
    private let current = Current()

    /// The session in use, so `stop()` reaches the latest one, and whether `stop()` came.
    private final class Current: Sendable {
        let state = Mutex<(session: LibCameraSession?, stopped: Bool)>((nil, false))
    }
    /// How long one wait lasts: bounds how long `stop()` takes.
    static let waitMilliseconds: Int32 = 50

    init(backend: LibCameraBackend, configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) {
        let role = backend.role(for: configuration)
        let frameDuration = configuration.frameDuration.isNumeric && configuration.frameDuration > .zero
            ? configuration.frameDuration : configuration.format.minFrameDuration
        let open: @Sendable () throws(CaptureError) -> LibCameraSession = { () throws(CaptureError) -> LibCameraSession in
            let session = try LibCameraSession(id: backend.cameraID, role: role, format: configuration.format)
            // Attached first, so values set before the stream go with its first requests.
            try backend.controls.attach(session)
            do throws(CaptureError) {
                try session.start(frameDuration: frameDuration)
            } catch {
                backend.controls.detach(session)
                throw error
            }
            return session
        }
        let first = try open()
        let reader = try LibCameraFrameReader(first.configured, frameDuration: frameDuration, deviceID: backend.descriptor.uniqueID)
        let current = self.current
        current.state.withLock { $0.session = first }
        let stall = configuration.stallTimeout?.nanoseconds
        worker = WorkerThread(name: "CaptureKit.libcamera") { thread in
            var session = first
            var numbering = FrameRenumbering(frameDuration: frameDuration.nanoseconds ?? 0)
            var lastSequence: UInt32?
            var lastFrame = MonotonicClock.nanoseconds()
            var returning = false
            while !thread.isStopping {
                var lost = false
                switch session.next(milliseconds: Self.waitMilliseconds) {
                case .frame(let frame):
                    lastFrame = MonotonicClock.nanoseconds()
                    if let last = lastSequence, frame.sequence > last &+ 1 { sink.event(.droppedFrames(count: Int(frame.sequence - last - 1))) }
                    lastSequence = frame.sequence
                    for metadata in zip(LibCameraFrameReader.ids(frame), LibCameraFrameReader.values(frame)) {
                        backend.controls.noteMetadata(id: metadata.0, value: metadata.1)
                    }
                    guard let sample = reader.read(frame, from: session) else {
                        sink.event(.droppedFrames(count: 1))
                        continue
                    }
                    if returning {
                        returning = false
                        sink.event(.reconnected)
                    }
                    let (numbered, missed) = numbering.number(sample)
                    if missed > 0 { sink.event(.droppedFrames(count: missed)) }
                    sink.deliver(numbered)
                case .timeout:
                    // The nodes are checked too: most pipeline handlers never report a camera gone.
                    if let stall, MonotonicClock.nanoseconds() - lastFrame > stall { lost = true }
                    if !backend.isConnected { lost = true }
                case .disconnected:
                    lost = true
                case .stopped:
                    return
                }
                guard lost, !thread.isStopping else { continue }
                session.stop(gone: !backend.isConnected)
                backend.controls.detach(session)
                current.state.withLock { $0.session = nil }
                sink.event(.disconnected)
                guard let back = Self.waitForReturn(thread, sink: sink, reopen: { () throws(CaptureError) -> LibCameraSession? in
                    backend.isConnected ? try open() : nil
                }) else { return }
                let stopped = current.state.withLock { state -> Bool in
                    if !state.stopped { state.session = back }
                    return state.stopped
                }
                if stopped {
                    back.stop()
                    return
                }
                session = back
                lastSequence = nil
                lastFrame = MonotonicClock.nanoseconds()
                numbering.resume()
                returning = true
            }
        }
        self.backend = backend
    }

    func stop() {
        let session = current.state.withLock { state -> LibCameraSession? in
            state.stopped = true
            return state.session
        }
        // Wakes the thread's wait (it returns .stopped), then joins it.
        session?.stop(gone: !backend.isConnected)
        worker.stop()
        if let session { backend.controls.detach(session) }
    }
}
