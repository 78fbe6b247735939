import Dispatch
import Synchronization

/// A running capture from one sound-server source through libpulse: a record stream whose read
/// callback (on the connection's loop thread) measures each chunk's capture time and hands it
/// to ``SoundServerDelivery``. libpulse is reached through ``PulseStreamIO`` only, so tests
/// script what the server does.
///
/// The stream does not follow its source elsewhere: when the source goes away the server ends
/// the stream, and that ending is reported as the device's disconnection — as is the server
/// going away.
final class PulseCaptureStream: DeviceStream, @unchecked Sendable {
    // Unchecked Sendable: state used only under the main loop's lock (`io.locked`, and the callbacks, which hold it).
    private let io: any PulseStreamIO
    private let sourceName: String
    private let deviceID: String
    private let format: AudioFormat
    private let sink: StreamSink
    private let opened = DispatchSemaphore(value: 0)

    // Loop-thread state: touched only under the main loop's lock.
    private var delivery: SoundServerDelivery
    private var phase = Phase.connecting
    private enum Phase { case connecting, running, ended, reconnecting, stopped }

    /// How long the server may take to accept the stream.
    static let openTimeout: Duration = .seconds(5)
    /// The fragment the server is asked to deliver: 10 ms of audio per read callback.
    static let fragmentMilliseconds = 10

    /// Opens a record stream on `sourceName` through `io`. Throws `.deviceNotFound` when the
    /// server has no such source — checked first, because PipeWire's pulse server would
    /// otherwise record silence from a source that does not exist.
    /// A stream whose source went away starts again when `io` hears that the server lists the
    /// source again (a headset plugged back in) and reports `.reconnected`.
    init(io: any PulseStreamIO, sourceName: String, deviceID: String, format: AudioFormat, sink: StreamSink) throws(CaptureError) {
        self.io = io
        self.sourceName = sourceName
        self.deviceID = deviceID
        self.format = format
        self.sink = sink
        delivery = SoundServerDelivery(format: format)
        guard try io.hasSource(named: sourceName) else {
            throw CaptureError(.deviceNotFound, "the sound server has no source named \(sourceName)", deviceID: deviceID)
        }
        try open()
        io.watchReturn(of: sourceName) { [weak self] in self?.sourceReturned() }
    }

    deinit {
        stop()
    }

    private func open() throws(CaptureError) {
        let failure: CaptureError? = io.locked { connectStream() }
        if let failure {
            stop()
            throw failure
        }
        let answered = opened.wait(timeout: .now() + Self.openTimeout.dispatchInterval) == .success
        let result = io.locked { () -> CaptureError? in
            switch phase {
            case .running: return nil
            case .connecting where !answered:
                return CaptureError(.deviceNotFound, "the sound server did not open \(sourceName) within \(Self.openTimeout)", deviceID: deviceID)
            default:
                return serverError("pa_stream_connect_record")
            }
        }
        if let result {
            stop()
            throw result
        }
    }

    /// Asks the server for a record stream; READY or FAILED follow in ``stateChanged()``. Call
    /// under the lock.
    private func connectStream() -> CaptureError? {
        // 10 ms per read callback; the server's defaults for the rest.
        let fragment = format.sampleRate * Self.fragmentMilliseconds / 1000 * format.bytesPerFrame
        // Unowned: the stream releases `io`'s callbacks (under the lock) before it goes.
        let result = io.connect(source: sourceName, format: format, fragmentBytes: fragment,
                                stateChanged: { [unowned(unsafe) self] in stateChanged() },
                                readable: { [unowned(unsafe) self] in readable() })
        switch result {
        case .started: return nil
        case .unsupportedFormat: return CaptureError(.unsupportedFormat, "the sound server cannot record \(format)", deviceID: deviceID)
        case .refused(let operation): return serverError(operation)
        }
    }

    /// An error naming what libpulse last reported. Call under the lock.
    private func serverError(_ operation: String) -> CaptureError {
        let failure = io.lastError()
        return CaptureError(failure.isGone ? .deviceNotFound : .systemCallFailed, "cannot record from \(sourceName): \(failure.message)",
                            operation: operation, deviceID: deviceID)
    }

    func stop() {
        io.stopWatching()
        io.locked {
            phase = .stopped
            io.release()
        }
    }

    /// The server lists the source again (loop thread): record from it again.
    private func sourceReturned() {
        guard phase == .ended, io.isServerAlive else { return }
        io.release()
        phase = .reconnecting
        if connectStream() != nil { phase = .ended }
    }

    // MARK: Loop thread

    private func stateChanged() {
        switch io.state {
        case .ready:
            if phase == .connecting {
                phase = .running
                opened.signal()
            } else if phase == .reconnecting {
                phase = .running
                delivery.restart()
                sink.event(.reconnected)
            }
        case .failed, .terminated:
            let was = phase
            phase = .ended
            if was == .connecting {
                opened.signal()
            } else if was == .running {
                // The source was removed (the stream does not move) or the server went away.
                sink.event(.disconnected)
            }
        case .connecting:
            break
        }
    }

    private func readable() {
        while phase == .running, io.readableBytes() > 0 {
            guard let fragment = io.peek() else {
                phase = .ended
                sink.event(.failed(serverError("pa_stream_peek")))
                return
            }
            switch fragment {
            case .empty:
                return
            case .audio(let data, let byteCount):
                let frames = byteCount / format.bytesPerFrame
                let (measuredStart, read) = captureTime(ofFirstOf: frames)
                delivery.deliver(data, frames: frames, measuredStart: measuredStart, read: read, to: sink)
            case .hole(let byteCount):
                // The server lost this much audio. The next buffer starts after it.
                delivery.skip(frames: byteCount / format.bytesPerFrame, to: sink)
            }
            io.drop()
        }
    }

    /// When the first of `frames` waiting samples was captured, in monotonic nanoseconds: now
    /// minus the stream's latency, which for a record stream is the age of the oldest unread
    /// sample (source latency plus what waits in the buffers). Before the server's first timing
    /// report, the chunk is taken to have just been completed. With it, `read`: now, when all
    /// of them are in hand (none can have been captured later).
    private func captureTime(ofFirstOf frames: Int) -> (measured: Int64, read: Int64) {
        let now = MonotonicClock.nanoseconds()
        guard let latency = io.latency() else {
            return (now - MonotonicClock.nanoseconds(atSample: Int64(frames), rate: format.sampleRate), now)
        }
        return (now - latency, now)
    }
}
