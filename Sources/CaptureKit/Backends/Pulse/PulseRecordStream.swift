internal import CPulse

/// libpulse's side of one sound-server capture: a `pa_stream` record stream on a
/// ``PulseConnection`` — the real ``PulseStreamIO``. Holds at most one stream at a time (a
/// capture whose source returns connects a new one).
final class PulseRecordStream: PulseStreamIO, @unchecked Sendable {
    // Unchecked Sendable: the pa_stream and the callbacks are used only under the connection's main-loop lock.
    private let connection: PulseConnection
    private let provider: PulseDeviceProvider?
    private var stream: OpaquePointer?
    private var stateChanged: (() -> Void)?
    private var readable: (() -> Void)?

    /// Records on `connection`. With a `provider`, ``watchReturn(of:_:)`` hears of sources the
    /// server lists anew; without, a source that goes stays gone.
    init(connection: PulseConnection, provider: PulseDeviceProvider? = nil) {
        self.connection = connection
        self.provider = provider
    }

    deinit {
        provider?.unwatch(self)
        connection.locked { release() }
    }

    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try connection.locked(body)
    }

    var isServerAlive: Bool { connection.isAlive }

    func hasSource(named name: String) throws(CaptureError) -> Bool {
        try connection.source(named: name) != nil
    }

    func connect(source: String, format: AudioFormat, fragmentBytes: Int,
                 stateChanged: @escaping () -> Void, readable: @escaping () -> Void) -> PulseConnectResult {
        var spec = pa_sample_spec(format: PulseSourceInfo.pulseFormat(format.sampleFormat), rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channelCount))
        guard pa_sample_spec_valid(&spec) != 0 else { return .unsupportedFormat }
        guard let stream = pa_stream_new(connection.context, "CaptureKit capture", &spec, nil) else {
            return .refused(operation: "pa_stream_new")
        }
        self.stream = stream
        self.stateChanged = stateChanged
        self.readable = readable
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseRecordStream>.fromOpaque(userdata).takeUnretainedValue().stateChanged?()
        }, me)
        pa_stream_set_read_callback(stream, { _, _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseRecordStream>.fromOpaque(userdata).takeUnretainedValue().readable?()
        }, me)
        // Only the fragment size matters for recording; the rest stay at the server's
        // defaults ((uint32_t)-1). ADJUST_LATENCY makes the source run at that latency.
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
                                        fragsize: UInt32(fragmentBytes))
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_DONT_MOVE.rawValue)
        guard pa_stream_connect_record(stream, source, &attributes, flags) >= 0 else {
            return .refused(operation: "pa_stream_connect_record")
        }
        return .started
    }

    var state: PulseStreamState {
        guard let stream else { return .connecting }
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY: return .ready
        case PA_STREAM_FAILED: return .failed
        case PA_STREAM_TERMINATED: return .terminated
        default: return .connecting
        }
    }

    func readableBytes() -> Int {
        guard let stream else { return 0 }
        return pa_stream_readable_size(stream)
    }

    func peek() -> PulseFragment? {
        guard let stream else { return nil }
        var data: UnsafeRawPointer?
        var byteCount = 0
        guard pa_stream_peek(stream, &data, &byteCount) == 0 else { return nil }
        guard byteCount > 0 else { return .empty }
        guard let data else { return .hole(byteCount: byteCount) }
        return .audio(data, byteCount: byteCount)
    }

    func drop() {
        guard let stream else { return }
        pa_stream_drop(stream)
    }

    func latency() -> Int64? {
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        guard let stream, pa_stream_get_latency(stream, &latency, &negative) == 0 else { return nil }
        let nanoseconds = Int64(latency) * 1_000
        return negative != 0 ? -nanoseconds : nanoseconds
    }

    func release() {
        guard let stream else { return }
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_read_callback(stream, nil, nil)
        if pa_stream_get_state(stream) == PA_STREAM_READY || pa_stream_get_state(stream) == PA_STREAM_CREATING {
            pa_stream_disconnect(stream)
        }
        pa_stream_unref(stream)
        self.stream = nil
        stateChanged = nil
        readable = nil
    }

    func lastError() -> PulseFailure {
        let code = pa_context_errno(connection.context)
        let gone = !connection.isAlive || code == Int32(PA_ERR_NOENTITY.rawValue) || code == Int32(PA_ERR_KILLED.rawValue)
        return PulseFailure(message: String(cString: pa_strerror(code)), isGone: gone)
    }

    func watchReturn(of source: String, _ returned: @escaping @Sendable () -> Void) {
        provider?.watch(source, for: self, returned: returned)
    }

    func stopWatching() {
        provider?.unwatch(self)
    }
}
