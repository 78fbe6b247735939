import Foundation

/// Where a ``CaptureStreamOutput`` publishes: a media server's URL, or a folder for HLS. The
/// protocol and container follow from the URL, as FFmpeg's do:
///
/// | URL | Protocol | Container |
/// |-----|----------|-----------|
/// | `rtmp://host[:port]/app/key`, `rtmps://…` | RTMP, RTMP over TLS | FLV (H.264 + AAC) |
/// | `srt://host:port?mode=caller`, `srt://:port?mode=listener` | SRT | MPEG-TS |
/// | `rtsp://[user:password@]host[:port]/path` | RTSP ANNOUNCE/RECORD | RTP |
/// | `/folder/name.m3u8`, `file:///folder/name.m3u8` | HLS (files) | MPEG-TS or fMP4 segments |
///
/// SRT takes libsrt's options as FFmpeg's `srt://` URLs do, in the query: `mode`
/// (`caller`, `listener`, `rendezvous`), `latency` (microseconds), `passphrase` (10–79
/// characters) and `pbkeylen`, `streamid`; ``srt(host:port:mode:latencyMilliseconds:passphrase:)``
/// writes them. Secrets — a URL's password, an RTMP stream key (everything after the
/// application), SRT's `passphrase` and `streamid`, any query value named like a key, token or
/// password — never appear in ``description``, errors, logs or statistics: those show `***`.
///
/// ```swift
/// let youtube = try StreamDestination("rtmp://a.rtmp.youtube.com/live2/xxxx-xxxx-xxxx-xxxx")
/// print(youtube)   // rtmp://a.rtmp.youtube.com/live2/***
/// ```
public struct StreamDestination: Sendable, Hashable, CustomStringConvertible {
    /// The protocols.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// RTMP (FLV over TCP).
        case rtmp
        /// RTMP over TLS.
        case rtmps
        /// SRT (MPEG-TS over SRT/UDP).
        case srt
        /// RTSP push: ANNOUNCE and RECORD, RTP over the RTSP connection (TCP) or UDP.
        case rtsp
        /// HTTP Live Streaming written as files: a playlist and its segments in a folder that
        /// any web server serves.
        case hls
    }

    /// How RTSP sends its RTP packets (`RTSPTransport`, shared with the
    /// network cameras).
    public typealias RTSPTransport = CaptureKitMedia.RTSPTransport

    /// What an HLS segment is.
    public enum HLSSegmentFormat: String, Sendable, Hashable {
        /// MPEG-TS segments (`.ts`): every player.
        case mpegts
        /// Fragmented MP4 segments (`.m4s` with an `init.mp4`): what newer players prefer.
        case fmp4
    }

    /// Which segments an HLS playlist lists.
    public enum HLSPlaylist: Sendable, Hashable {
        /// The newest `segments` only; older segment files are deleted (a live window).
        case rolling(segments: Int)
        /// Every segment since the start (an event playlist: viewers can seek back to the start).
        case event
    }

    /// The protocol.
    public let kind: Kind
    /// The URL with its secrets, for FFmpeg only.
    let address: String
    /// The URL as it may be shown: secrets replaced by `***`.
    public let description: String
    /// How RTSP sends RTP (``RTSPTransport/tcp`` by default; the URL query `transport=udp`
    /// sets it too).
    public var rtspTransport: RTSPTransport = .tcp
    /// HLS segments (``HLSSegmentFormat/mpegts`` by default).
    public var hlsSegmentFormat: HLSSegmentFormat = .mpegts
    /// The HLS playlist (the newest 6 segments by default).
    public var hlsPlaylist: HLSPlaylist = .rolling(segments: 6)

    /// Parses `url`. `.invalidArgument` for a URL that names no protocol CaptureKit publishes
    /// to (the message shows the URL redacted), or an HLS playlist in a folder that does not
    /// exist or cannot be written.
    public init(_ url: String) throws(CaptureError) {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("/") || trimmed.hasPrefix("file://") {
            let path = trimmed.hasPrefix("file://") ? String(trimmed.dropFirst("file://".count)) : trimmed
            guard path.lowercased().hasSuffix(".m3u8") else {
                throw .invalidArgument("\(path) is no HLS playlist (a file name ending in .m3u8)")
            }
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue, access(folder, W_OK) == 0 else {
                throw CaptureError(.fileError, "\(folder) is not a folder HLS segments can be written to", path: folder)
            }
            kind = .hls
            address = path
            description = path
            return
        }
        guard var components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw .invalidArgument("\(Self.redact(trimmed)) is not a URL")
        }
        guard let kind = Kind(rawValue: scheme), kind != .hls else {
            throw .invalidArgument("cannot publish to \(scheme): URLs (rtmp, rtmps, srt, rtsp, or an .m3u8 file path for HLS)")
        }
        self.kind = kind
        if kind == .rtsp, let items = components.queryItems, let transport = items.first(where: { $0.name == "transport" }) {
            guard let value = transport.value.flatMap(RTSPTransport.init(rawValue:)) else {
                throw .invalidArgument("the RTSP transport must be tcp or udp")
            }
            rtspTransport = value
            let rest = items.filter { $0.name != "transport" }
            components.queryItems = rest.isEmpty ? nil : rest
        }
        if kind == .srt {
            // Seven TS packets: what SRT's live mode carries per datagram; and a second at the
            // end for what is still unacknowledged (live mode drops it on close otherwise).
            for (name, value) in [("pkt_size", "1316"), ("linger", "1")] where !(components.queryItems ?? []).contains(where: { $0.name == name }) {
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: name, value: value)]
            }
        }
        guard components.host != nil || kind == .srt else {
            throw .invalidArgument("\(Self.redact(trimmed)) names no host")
        }
        let full = components.string ?? trimmed
        address = full
        description = URLSecrets.register(full)
    }

    /// An SRT destination: `caller` connects to a listener at `host:port`; `listener` waits
    /// on `port` (any `host`) for one caller, and again after it leaves. `latencyMilliseconds`
    /// is SRT's receive latency (120 ms by default); a `passphrase` (10–79 characters)
    /// encrypts with AES-128.
    public static func srt(host: String, port: Int, mode: SRTMode = .caller, latencyMilliseconds: Int? = nil,
                           passphrase: String? = nil) throws(CaptureError) -> StreamDestination {
        if let passphrase, !(10...79).contains(passphrase.count) {
            throw .invalidArgument("an SRT passphrase has 10 to 79 characters")
        }
        var components = URLComponents()
        components.scheme = "srt"
        components.host = mode == .listener ? "" : host
        components.port = port
        var items = [URLQueryItem(name: "mode", value: mode.rawValue)]
        if let latencyMilliseconds { items.append(URLQueryItem(name: "latency", value: String(latencyMilliseconds * 1000))) }
        if let passphrase { items += [URLQueryItem(name: "passphrase", value: passphrase), URLQueryItem(name: "pbkeylen", value: "16")] }
        components.queryItems = items
        guard let url = components.string else { throw .invalidArgument("cannot build an SRT URL for \(host):\(port)") }
        return try StreamDestination(url)
    }

    /// SRT's connection modes.
    public enum SRTMode: String, Sendable, Hashable {
        /// Connects to a listener.
        case caller
        /// Waits for a caller.
        case listener
        /// Both sides connect to each other (through NAT).
        case rendezvous
    }

    /// The FFmpeg muxer for the protocol.
    var formatName: String {
        switch kind {
        case .rtmp, .rtmps: return "flv"
        case .srt: return "mpegts"
        case .rtsp: return "rtsp"
        case .hls: return "hls"
        }
    }

    /// Whether the output waits for a caller rather than connecting.
    var isListener: Bool {
        kind == .srt && (URLComponents(string: address)?.queryItems ?? []).contains { $0.name == "mode" && $0.value == "listener" }
    }

    /// `url` as it may be shown.
    static func redact(_ url: String) -> String { URLSecrets.redact(url) }
}
