internal import CFFmpeg
internal import CSRT

/// The SRT socket under a stream FFmpeg's `srt://` protocol opened, for libsrt's statistics of
/// the link (round-trip time, retransmissions), which FFmpeg does not pass on.
///
/// FFmpeg keeps the socket in private structures: the `AVIOContext`'s opaque is the
/// `URLContext`, whose `priv_data` is libsrt's `SRTContext`, whose `fd` is the socket. Both
/// structures begin with an `AVClass` pointer, which is public: each step is checked by its
/// class name ("URLContext", "libsrt") before the next is taken, the layout is relied on only
/// for the FFmpeg versions it was read in (libavformat 58 to 61: `priv_data` third, `fd`
/// second, unchanged since libsrt support came in 2018), and the socket found must be one
/// libsrt knows as connected. Anything else means no statistics, never a wrong read.
struct SRTLink {
    private let socket: SRTSOCKET

    /// What libsrt measures of the link.
    struct Measure: Sendable, Hashable {
        /// The smoothed round-trip time.
        var roundTripTime: MediaTime
        /// Packets sent again after the receiver reported them lost.
        var retransmittedPackets: Int
    }

    /// The SRT socket of `io` (an `srt://` stream's), or nil when it cannot be found for sure.
    init?(_ io: UnsafeMutablePointer<AVIOContext>?) {
        guard (58...61).contains(avformat_version() >> 16), let io, let urlContext = io.pointee.opaque,
              Self.className(of: urlContext) == "URLContext",
              let privateData = urlContext.load(fromByteOffset: 2 * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer?.self),
              Self.className(of: privateData) == "libsrt"
        else { return nil }
        let socket = privateData.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.stride, as: Int32.self)
        guard srt_getsockstate(socket) == SRTS_CONNECTED else { return nil }
        self.socket = socket
    }

    /// The link's statistics now, or nil when libsrt has none (the socket closed). Wraps
    /// `srt_bstats`.
    func measure() -> Measure? {
        var statistics = SRT_TRACEBSTATS()
        guard srt_bstats(socket, &statistics, 0) == 0 else { return nil }
        return Measure(roundTripTime: MediaTime(seconds: statistics.msRTT / 1000, preferredTimescale: 1_000_000),
                       retransmittedPackets: Int(statistics.pktRetransTotal))
    }

    /// The class name of an FFmpeg object, whose first field is its `AVClass` pointer.
    private static func className(of object: UnsafeRawPointer) -> String? {
        guard let type = object.load(as: UnsafePointer<AVClass>?.self), let name = type.pointee.class_name else { return nil }
        return String(cString: name)
    }
}
