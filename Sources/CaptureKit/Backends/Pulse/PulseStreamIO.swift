/// What a sound-server capture stream asks of libpulse: one method per call it makes on the
/// connection and its `pa_stream`. The real one is ``PulseRecordStream``; tests script one
/// (holes, latency reports, a stream that fails, a source that returns, a server that goes
/// away), so ``PulseCaptureStream``'s logic runs without a daemon and no test knob is read on
/// its path.
///
/// Every call but ``hasSource(named:)`` is made under ``locked(_:)``; the callbacks run with
/// the lock held (on libpulse's loop thread).
protocol PulseStreamIO: AnyObject {
    /// Runs `body` holding the main loop's lock (`pa_threaded_mainloop_lock`), or directly on
    /// the loop's thread, where it is held.
    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R
    /// Whether the connection to the server is up (`pa_context_get_state`).
    var isServerAlive: Bool { get }
    /// Whether the server has a source called `name` (`pa_context_get_source_info_by_name`).
    /// Waits for the answer: not under the lock.
    func hasSource(named name: String) throws(CaptureError) -> Bool
    /// Makes a record stream of `format` (`pa_stream_new`) whose state and read callbacks call
    /// `stateChanged` and `readable`, and connects it to `source` asking for `fragmentBytes` per
    /// read, without following the source elsewhere when it goes (`pa_stream_connect_record`,
    /// `PA_STREAM_DONT_MOVE`). The state changes come later, in `stateChanged`.
    func connect(source: String, format: AudioFormat, fragmentBytes: Int,
                 stateChanged: @escaping () -> Void, readable: @escaping () -> Void) -> PulseConnectResult
    /// The stream's state (`pa_stream_get_state`); `.connecting` without a stream.
    var state: PulseStreamState { get }
    /// Bytes ready to read (`pa_stream_readable_size`); 0 without a stream.
    func readableBytes() -> Int
    /// The next fragment (`pa_stream_peek`); nil when libpulse failed (``lastError()`` says why).
    func peek() -> PulseFragment?
    /// Lets the peeked fragment go (`pa_stream_drop`).
    func drop()
    /// How old the oldest unread sample is, in nanoseconds (negative: it lies ahead), or nil
    /// before the server's first timing report (`pa_stream_get_latency`).
    func latency() -> Int64?
    /// Stops the callbacks, disconnects a stream that is connecting or ready
    /// (`pa_stream_disconnect`) and lets it go (`pa_stream_unref`).
    func release()
    /// What libpulse last reported (`pa_context_errno`, `pa_strerror`).
    func lastError() -> PulseFailure
    /// Calls `returned` (on the loop thread) whenever the server lists `source` anew, until
    /// ``stopWatching()`` (the server's subscription events, through the provider).
    func watchReturn(of source: String, _ returned: @escaping @Sendable () -> Void)
    /// Ends ``watchReturn(of:_:)``.
    func stopWatching()
}

/// How `pa_stream_connect_record` went.
enum PulseConnectResult: Sendable, Equatable {
    /// Asked; READY or FAILED follows.
    case started
    /// The server cannot record this format (`pa_sample_spec_valid`).
    case unsupportedFormat
    /// libpulse refused `operation`; ``PulseStreamIO/lastError()`` says why.
    case refused(operation: String)
}

/// A record stream's state, reduced to what capture distinguishes.
enum PulseStreamState: Sendable, Equatable {
    /// Not yet connected, or being connected.
    case connecting
    case ready
    /// Ended by the server: the source went away (the stream does not move), or an error.
    case failed
    /// Ended: the server went away, or the stream was disconnected.
    case terminated
}

/// One `pa_stream_peek`.
enum PulseFragment {
    /// Audio: `byteCount` bytes at `bytes`, valid until ``PulseStreamIO/drop()``.
    case audio(UnsafeRawPointer, byteCount: Int)
    /// A hole: the server lost `byteCount` bytes of audio here.
    case hole(byteCount: Int)
    /// Nothing to read (nothing to drop either).
    case empty
}

/// What libpulse said about its last failure.
struct PulseFailure: Sendable, Equatable {
    var message: String
    /// Whether it means the source or the server is gone (no such entity, killed, no
    /// connection) rather than a refusal.
    var isGone: Bool
}
