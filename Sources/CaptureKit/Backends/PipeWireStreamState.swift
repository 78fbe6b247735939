/// The lifecycle both PipeWire capture streams share — a camera node's
/// (`Backends/PipeWire`) and a sound-server source's (`Backends/Pulse`) — as a value the stream
/// keeps under its lock; each transition returns what the stream must do outside it (wake the
/// thread waiting for the stream to start, close a `pw_stream`).
///
/// ```text
/// opening ──streaming──▶ running ──lose()──▶ lost ──reopen()──▶ opening
///    │ failed, or no answer in time: abandonOpening() ──▶ lost (stopped stays stopped)
/// any ──stop()──▶ stopped
/// ```
struct PipeWireStreamState<Handle: Sendable>: Sendable {
    enum Phase: Sendable { case opening, running, lost, stopped }

    private(set) var phase = Phase.opening
    /// The open `pw_stream`, if any.
    var handle: Handle?
    /// Why the stream failed or ended, as PipeWire said.
    private(set) var failure: String?
    /// A lost stream is being closed away from its own thread: no new one before it is.
    private var closing = false

    /// The stream's `pw_stream_state` changed (-1 error, 0 unconnected, 1 connecting, 2 paused,
    /// 3 streaming). Returns whether the thread waiting for the stream to start should wake: it
    /// streams, or it failed while opening.
    mutating func streamStateChanged(_ value: Int, error: String?) -> Bool {
        switch value {
        case 3:
            guard phase == .opening else { return false }
            phase = .running
            return true
        case -1, 0:
            failure = failure ?? error ?? "the stream ended"
            return phase == .opening
        default:
            return false
        }
    }

    /// The stream's node went away while it ran: returns the handle to close, nil unless it was
    /// running. With `closingLater`, no new stream opens before ``closed()``.
    mutating func lose(closingLater: Bool = false) -> Handle? {
        guard phase == .running else { return nil }
        phase = .lost
        closing = closingLater
        defer { handle = nil }
        return handle
    }

    /// The lost stream handed to ``lose(closingLater:)`` is closed.
    mutating func closed() { closing = false }

    /// Opening did not end in streaming: returns the handle to close; the stream is lost
    /// (another attempt may follow), unless it was stopped meanwhile.
    mutating func abandonOpening() -> Handle? {
        if phase != .stopped { phase = .lost }
        defer { handle = nil }
        return handle
    }

    /// Starts opening again after a loss; false unless lost and the lost stream is closed.
    mutating func reopen() -> Bool {
        guard phase == .lost, handle == nil, !closing else { return false }
        phase = .opening
        failure = nil
        return true
    }

    /// Stopped for good: returns the handle to close.
    mutating func stop() -> Handle? {
        phase = .stopped
        defer { handle = nil }
        return handle
    }
}
