internal import CPulse
import Dispatch
import Synchronization

/// A running capture from one sound-server source: a `pa_stream` record stream whose read
/// callback (on the connection's loop thread) stamps each chunk on the monotonic clock (see
/// ``AudioTimeline``) and hands it to the session.
///
/// The stream is made with `PA_STREAM_DONT_MOVE`: when its source goes away the server ends it
/// instead of silently moving it to another source, and that ending is reported as the device's
/// disconnection — as is the server going away.
final class PulseCaptureStream: DeviceStream, @unchecked Sendable {
    // Unchecked Sendable: libpulse objects used only under the connection's main-loop lock.
    private let connection: PulseConnection
    private let sourceName: String
    private let deviceID: String
    private let format: AudioFormat
    private let sink: StreamSink
    private let pool: StoragePool
    private let framesPerBlock: Int
    private let opened = DispatchSemaphore(value: 0)

    // Loop-thread state: touched only under the main loop's lock.
    private var stream: OpaquePointer?
    private var timeline: AudioTimeline
    private var phase = Phase.connecting
    private enum Phase { case connecting, running, ended, reconnecting, stopped }
    private let provider: PulseDeviceProvider?

    /// How long the server may take to accept the stream.
    static let openTimeout: Duration = .seconds(5)
    /// The fragment the server is asked to deliver: 10 ms of audio per read callback.
    static let fragmentMilliseconds = 10

    /// Opens a record stream on `sourceName`. Throws `.deviceNotFound` when the server has no
    /// such source — checked first, because PipeWire's pulse server would otherwise record
    /// silence from a source that does not exist.
    /// With a `provider`, a stream whose source went away starts again when the server lists the
    /// source again (a headset plugged back in) and reports `.reconnected`.
    init(connection: PulseConnection, sourceName: String, deviceID: String, format: AudioFormat, sink: StreamSink,
         provider: PulseDeviceProvider? = nil) throws(CaptureError) {
        self.connection = connection
        self.provider = provider
        self.sourceName = sourceName
        self.deviceID = deviceID
        self.format = format
        self.sink = sink
        timeline = AudioTimeline(sampleRate: format.sampleRate)
        framesPerBlock = max(1, format.sampleRate / 50)
        pool = StoragePool(blockSize: framesPerBlock * format.bytesPerFrame, maximumIdle: 64)
        guard try connection.source(named: sourceName) != nil else {
            throw CaptureError(.deviceNotFound, "the sound server has no source named \(sourceName)", deviceID: deviceID)
        }
        try open()
        provider?.watch(sourceName, for: self) { [weak self] in self?.sourceReturned() }
    }

    deinit {
        stop()
    }

    private func open() throws(CaptureError) {
        let failure: CaptureError? = connection.locked { connectStream() }
        if let failure {
            stop()
            throw failure
        }
        let answered = opened.wait(timeout: .now() + Self.openTimeout.dispatchInterval) == .success
        let result = connection.locked { () -> CaptureError? in
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

    /// Makes the `pa_stream` and asks the server to connect it; READY or FAILED follow in
    /// ``stateChanged()``. Call under the lock.
    private func connectStream() -> CaptureError? {
        var spec = pa_sample_spec(format: PulseSourceInfo.pulseFormat(format.sampleFormat), rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channelCount))
        guard pa_sample_spec_valid(&spec) != 0 else {
            return CaptureError(.unsupportedFormat, "the sound server cannot record \(format)", deviceID: deviceID)
        }
        guard let stream = pa_stream_new(connection.context, "CaptureKit capture", &spec, nil) else {
            return serverError("pa_stream_new")
        }
        self.stream = stream
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseCaptureStream>.fromOpaque(userdata).takeUnretainedValue().stateChanged()
        }, me)
        pa_stream_set_read_callback(stream, { _, _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseCaptureStream>.fromOpaque(userdata).takeUnretainedValue().readable()
        }, me)
        // Only the fragment size matters for recording; the rest stay at the server's
        // defaults ((uint32_t)-1). ADJUST_LATENCY makes the source run at that latency.
        let fragment = UInt32(format.sampleRate * Self.fragmentMilliseconds / 1000 * format.bytesPerFrame)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: fragment)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_DONT_MOVE.rawValue)
        guard pa_stream_connect_record(stream, sourceName, &attributes, flags) >= 0 else {
            return serverError("pa_stream_connect_record")
        }
        return nil
    }

    /// An error naming what libpulse last reported. Call under the lock.
    private func serverError(_ operation: String) -> CaptureError {
        let code = pa_context_errno(connection.context)
        let why = String(cString: pa_strerror(code))
        let gone = !connection.isAlive || code == Int32(PA_ERR_NOENTITY.rawValue) || code == Int32(PA_ERR_KILLED.rawValue)
        return CaptureError(gone ? .deviceNotFound : .systemCallFailed, "cannot record from \(sourceName): \(why)",
                            operation: operation, deviceID: deviceID)
    }

    func stop() {
        provider?.unwatch(self)
        connection.locked {
            phase = .stopped
            releaseStream()
        }
    }

    /// Detaches from the current `pa_stream` and lets it go. Call under the lock.
    private func releaseStream() {
        guard let stream else { return }
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_read_callback(stream, nil, nil)
        if pa_stream_get_state(stream) == PA_STREAM_READY || pa_stream_get_state(stream) == PA_STREAM_CREATING {
            pa_stream_disconnect(stream)
        }
        pa_stream_unref(stream)
        self.stream = nil
    }

    /// The server lists the source again (loop thread): record from it again.
    private func sourceReturned() {
        guard phase == .ended, connection.isAlive else { return }
        releaseStream()
        phase = .reconnecting
        if connectStream() != nil { phase = .ended }
    }

    // MARK: Loop thread

    private func stateChanged() {
        guard let stream else { return }
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            if phase == .connecting {
                phase = .running
                opened.signal()
            } else if phase == .reconnecting {
                phase = .running
                timeline.restart()
                sink.event(.reconnected)
            }
        case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
            let was = phase
            phase = .ended
            if was == .connecting {
                opened.signal()
            } else if was == .running {
                // The source was removed (DONT_MOVE ends the stream) or the server went away.
                sink.event(.disconnected)
            }
        default:
            break
        }
    }

    private func readable() {
        while let stream, phase == .running, pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var byteCount = 0
            guard pa_stream_peek(stream, &data, &byteCount) == 0 else {
                phase = .ended
                sink.event(.failed(serverError("pa_stream_peek")))
                return
            }
            guard byteCount > 0 else { return }
            let frames = byteCount / format.bytesPerFrame
            if let data {
                let (measuredStart, read) = captureTime(ofFirstOf: frames)
                deliver(data, frames: frames, measuredStart: measuredStart, read: read)
            } else {
                // A hole: the server lost this much audio. The next buffer starts after it.
                timeline.skip(frames: frames)
                sink.event(.droppedFrames(count: frames))
            }
            pa_stream_drop(stream)
        }
    }

    /// When the first of `frames` waiting samples was captured, in monotonic nanoseconds: now
    /// minus the stream's latency, which for a record stream is the age of the oldest unread
    /// sample (source latency plus what waits in the buffers). Before the server's first timing
    /// report, the chunk is taken to have just been completed. With it, `read`: now, when all
    /// of them are in hand (none can have been captured later).
    private func captureTime(ofFirstOf frames: Int) -> (measured: Int64, read: Int64) {
        let now = MonotonicClock.nanoseconds()
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        guard let stream, pa_stream_get_latency(stream, &latency, &negative) == 0 else {
            return (now - MonotonicClock.nanoseconds(atSample: Int64(frames), rate: format.sampleRate), now)
        }
        let nanoseconds = Int64(latency) * 1_000
        return (negative != 0 ? now + nanoseconds : now - nanoseconds, now)
    }

    private func deliver(_ data: UnsafeRawPointer, frames: Int, measuredStart: Int64, read: Int64) {
        let placement = timeline.place(frames: frames, measuredStartNanoseconds: measuredStart, readNanoseconds: read)
        if placement.gap > 0 { sink.event(.droppedFrames(count: Int(placement.gap))) }
        var offset = 0
        while offset < frames {
            let count = min(framesPerBlock, frames - offset)
            let storage: MediaStorage
            do {
                storage = try pool.take()
            } catch {
                sink.event(.droppedFrames(count: frames - offset))
                return
            }
            storage.bytes.copyMemory(from: data + offset * format.bytesPerFrame, byteCount: count * format.bytesPerFrame)
            let buffer = AudioBuffer(format: format, frameCount: count, storage: storage)
            let start = placement.start + Int64(offset)
            sink.deliver(SampleBuffer(media: .audio(buffer), presentationTimeStamp: timeline.time(ofSample: start),
                                      duration: buffer.duration, sequenceNumber: UInt64(placement.sequence + Int64(offset))))
            offset += count
        }
    }
}
