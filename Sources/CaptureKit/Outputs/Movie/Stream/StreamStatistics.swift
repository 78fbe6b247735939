/// How one destination of a ``CaptureStreamOutput`` is doing (``CaptureStreamOutput/statistics``).
public struct StreamStatistics: Sendable, Equatable {
    /// Where a destination stands.
    public enum State: Sendable, Equatable {
        /// Connecting for the first time (a listener: waiting for its caller).
        case connecting
        /// Sending.
        case connected
        /// Away: reconnection `attempt` (from 1) is next or under way.
        case reconnecting(attempt: Int)
        /// Done.
        case ended
    }

    /// The destination, redacted when shown.
    public var destination: StreamDestination
    /// Where it stands.
    public var state: State = .connecting
    /// Coded bytes sent (as handed to the connection; headers of the protocol not counted).
    public var bytesSent: Int64 = 0
    /// Bits per second sent over the last second.
    public var bitRate = 0
    /// Video frames sent.
    public var framesSent = 0
    /// Video frames not sent: dropped for a slow link or while away (their sound with them).
    public var framesDropped = 0
    /// How many times a connection was made again after it broke or failed.
    public var reconnects = 0
    /// Capture to hand-off to the network of the last video frame sent: what the encoder, the
    /// queue and a slow link add (a viewer adds the network and its own buffer). Nil before
    /// the first frame, or for a source not paced by the clock.
    public var latency: MediaTime?
    /// The link's smoothed round-trip time, as SRT measures it (libsrt's `msRTT`), updated
    /// once a second; nil for protocols that do not report one.
    public var roundTripTime: MediaTime?
    /// Packets SRT sent again because the receiver reported them lost, over every connection;
    /// nil for protocols that do not report it.
    public var retransmittedPackets: Int?

    /// A destination's statistics before anything was sent.
    public init(destination: StreamDestination) { self.destination = destination }
}
