/// Where one `glass-to-glass` case sends its stream and where the receiving ffmpeg reads it:
/// over loopback RTMP through the benchmark's nginx-rtmp (``BenchRTMPServer``), or over SRT
/// straight to the receiver, which listens (`mode=listener`) for the publisher to call.
struct GlassRoute: Sendable {
    /// The two protocols the row measures.
    enum Transport: String, Sendable, CaseIterable {
        case rtmp = "RTMP"
        case srt = "SRT"
    }

    let transport: Transport
    /// What the publisher opens: CaptureKit's ``StreamDestination`` URL, ffmpeg's output.
    let publishURL: String
    /// What the receiving ffmpeg opens with `-i`.
    let receiveURL: String
    /// The UDP port the SRT receiver listens on (nil for RTMP, whose server is up already).
    let listeningPort: Int?

    /// ffmpeg's muxer for the route: FLV for RTMP, MPEG-TS for SRT (what CaptureKit sends on each).
    var muxer: String { transport == .rtmp ? "flv" : "mpegts" }

    /// A stream key of its own on the server, so that no case plays what another published.
    static func rtmp(_ server: BenchRTMPServer, streamKey: String) -> GlassRoute {
        let url = server.url(streamKey: streamKey)
        return GlassRoute(transport: .rtmp, publishURL: url, receiveURL: url, listeningPort: nil)
    }

    /// A fresh port per case: a listener that has just closed may still hold the last one.
    /// libsrt's default latency (120 ms) on both ends, as neither CaptureKit's
    /// ``StreamDestination`` nor ffmpeg sets another unless asked.
    static func srt() throws -> GlassRoute {
        let port = try LoopbackPort.free()
        return GlassRoute(transport: .srt, publishURL: "srt://127.0.0.1:\(port)?mode=caller",
                          receiveURL: "srt://127.0.0.1:\(port)?mode=listener", listeningPort: port)
    }
}
