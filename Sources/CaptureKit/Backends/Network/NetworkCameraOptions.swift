/// How CaptureKit reads a network camera (``CaptureDevice/networkCamera(url:options:)``).
public struct NetworkCameraOptions: Sendable, Hashable {
    /// The name people see; by default the URL's host and path.
    public var name: String?
    /// How RTSP sends RTP: interleaved in its TCP connection (the default: passes firewalls and
    /// NAT, loses nothing) or over UDP.
    public var rtspTransport: RTSPTransport = .tcp
    /// No frame for this long means the camera is gone: the session is interrupted and
    /// CaptureKit reconnects.
    public var stallTimeout: Duration = .seconds(5)
    /// The longest a connection may take to deliver what the stream is (an RTSP server starts
    /// a pipeline per client, then FFmpeg reads up to a second of the stream to learn it).
    public var connectTimeout: Duration = .seconds(10)
    /// The wait before the first reconnection attempt; it doubles after each failed attempt, up
    /// to ``maximumReconnectDelay``, and starts again from here once the camera is back.
    public var reconnectDelay: Duration = .milliseconds(500)
    /// The longest wait between reconnection attempts.
    public var maximumReconnectDelay: Duration = .seconds(5)
    /// The FFmpeg demuxer to read the stream with (`mpjpeg`, `mpegts`…), for a stream FFmpeg
    /// cannot tell by its URL and first bytes; nil lets FFmpeg decide.
    public var format: String?

    /// The defaults: RTSP over TCP, a 5 s stall timeout, 10 s to connect, reconnecting after
    /// 0.5 s, 1 s, 2 s… 5 s.
    public init() {}
}
