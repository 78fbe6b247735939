internal import CPipeWire
import Dispatch
import Synchronization

/// A running capture from one sound-server source through PipeWire itself: a `pw_stream` (through
/// the shim) whose buffers arrive on PipeWire's data thread, are stamped with the graph's time
/// less the delay from the device, and go to ``SoundServerDelivery`` — the route
/// ``SoundServerRoute/pipeWire``.
///
/// The stream follows no other node: when its source goes away (or the daemon does) it ends and
/// reports `.disconnected`; when the sound server lists the source again it opens a new stream
/// and reports `.reconnected`, as the libpulse route does.
final class PipeWireAudioStream: DeviceStream, Sendable {
    /// The shim's stream.
    private struct Handle: @unchecked Sendable {
        // Unchecked Sendable: a C pointer, opened and closed under the state's lock only.
        let pointer: OpaquePointer
    }

    /// What the stream records: the node called `node`, or what it plays when `isSinkMonitor`.
    struct Target: Sendable, Equatable {
        var node: String
        var isSinkMonitor: Bool
    }

    private let target: Target
    private let sourceName: String
    private let deviceID: String
    private let format: AudioFormat
    private let sink: StreamSink
    private let provider: PulseDeviceProvider
    private let state = Mutex(PipeWireStreamState<Handle>())
    private let streaming = DispatchSemaphore(value: 0)
    /// Used by the data thread of the one open stream, and to restart it before a new one opens:
    /// a lock never contended, and cheaper per buffer than a class property's dynamic exclusivity
    /// check.
    private let delivery: Mutex<SoundServerDelivery>

    /// How long PipeWire may take to link the stream to the node and start it.
    static let openTimeout: Duration = .seconds(5)

    /// Records `format` from `target`, the node behind the sound-server source `sourceName`.
    /// Throws when PipeWire does not start the stream (no such node on this daemon, no session
    /// manager to link it).
    init(target: Target, sourceName: String, deviceID: String, format: AudioFormat, sink: StreamSink,
         provider: PulseDeviceProvider) throws(CaptureError) {
        self.target = target
        self.sourceName = sourceName
        self.deviceID = deviceID
        self.format = format
        self.sink = sink
        self.provider = provider
        delivery = Mutex(SoundServerDelivery(format: format))
        try open()
        // The server's events arrive on libpulse's loop thread, which opening must not block.
        provider.watch(sourceName, for: self) { [weak self] in
            guard let self else { return }
            DispatchQueue.global().async { self.sourceReturned() }
        }
    }

    deinit { stop() }

    private var sampleFormat: UInt32 {
        switch format.sampleFormat {
        case .s16: UInt32(CK_PW_AUDIO_S16)
        case .s32: UInt32(CK_PW_AUDIO_S32)
        case .f32: UInt32(CK_PW_AUDIO_F32)
        }
    }

    /// Opens the C stream and waits until it streams.
    private func open() throws(CaptureError) {
        var message = [CChar](repeating: 0, count: 256)
        let user = Unmanaged.passUnretained(self).toOpaque()
        // PipeWire's graph runs in quanta of a power of two frames, so asking for 480 (10 ms at
        // 48 kHz) gets 256, twice the wake-ups: the first power of two that lasts 10 ms.
        let tenMilliseconds = format.sampleRate * PulseCaptureStream.fragmentMilliseconds / 1000
        let latency = UInt32(1 << (Int.bitWidth - (max(tenMilliseconds, 2) - 1).leadingZeroBitCount))
        let handle = ck_pw_audio_open(-1, target.node, target.isSinkMonitor ? 1 : 0, UInt32(format.sampleRate), UInt32(format.channelCount),
                                      sampleFormat, latency, { user, data, frames, captured, read in
            guard let user, let data else { return }
            Unmanaged<PipeWireAudioStream>.fromOpaque(user).takeUnretainedValue().audio(data, frames: Int(frames), captured: captured, read: read)
        }, { user, state, error in
            guard let user else { return }
            Unmanaged<PipeWireAudioStream>.fromOpaque(user).takeUnretainedValue().stateChanged(Int(state), error: error.map { String(cString: $0) })
        }, user, &message, message.count)
        guard let handle else {
            throw CaptureError(.deviceNotFound, "cannot record \(sourceName) through PipeWire: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))",
                               deviceID: deviceID)
        }
        state.withLock { $0.handle = Handle(pointer: handle) }
        let answered = streaming.wait(timeout: .now() + Self.openTimeout.dispatchInterval) == .success
        let (phase, failure) = state.withLock { ($0.phase, $0.failure) }
        guard answered, phase == .running else {
            close(state.withLock { $0.abandonOpening() })
            let why = failure ?? "PipeWire did not start it within \(Self.openTimeout)"
            throw CaptureError(.deviceNotFound, "cannot record \(sourceName) through PipeWire: \(why)", deviceID: deviceID)
        }
    }

    /// Joins the stream's threads: none of its callbacks runs after this.
    private func close(_ handle: Handle?) {
        if let handle { ck_pw_audio_close(handle.pointer) }
    }

    func stop() {
        provider.unwatch(self)
        close(state.withLock { $0.stop() })
    }

    /// The sound server lists the source again: record from it again.
    private func sourceReturned() {
        guard state.withLock({ $0.reopen() }) else { return }
        do throws(CaptureError) {
            delivery.withLock { $0.restart() }
            try open()
            sink.event(.reconnected)
        } catch {
            // Still away, or not recordable: the next listing tries again.
        }
    }

    // MARK: PipeWire's threads

    private func stateChanged(_ value: Int, error: String?) {
        let (wake, lost) = state.withLock { state -> (Bool, Handle?) in
            let wake = state.streamStateChanged(value, error: error)
            return (wake, value <= 0 ? state.lose(closingLater: true) : nil)
        }
        if wake { streaming.signal() }
        guard let lost else { return }
        // Closing joins this thread: from elsewhere, keeping the stream (whose pointer the
        // callbacks hold) alive until it is closed.
        DispatchQueue.global().async { [self] in
            close(lost)
            state.withLock { $0.closed() }
        }
        sink.event(.disconnected)
    }

    private func audio(_ data: UnsafePointer<UInt8>, frames: Int, captured: Int64, read: Int64) {
        guard state.withLock({ $0.phase == .running }) else { return }
        // Before the stream knows the graph's timing, the buffer is taken to have just ended.
        let start = captured > 0 ? captured : read - MonotonicClock.nanoseconds(atSample: Int64(frames), rate: format.sampleRate)
        delivery.withLock { $0.deliver(UnsafeRawPointer(data), frames: frames, measuredStart: start, read: read, to: sink) }
    }
}
