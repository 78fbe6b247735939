/// How RTSP sends its RTP packets, publishing (``StreamDestination``) or reading a network
/// camera: FFmpeg's `rtsp_transport` option.
public enum RTSPTransport: String, Sendable, Hashable {
    /// Interleaved in the RTSP TCP connection: passes firewalls and NAT (the default).
    case tcp
    /// Over UDP: less delay, but lost packets stay lost.
    case udp
}
