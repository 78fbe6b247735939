internal import CPulse

/// The server's self-description (`pa_server_info`).
struct PulseServerInfo: Sendable {
    /// "pulseaudio", or "PulseAudio (on PipeWire 0.3.65)".
    var name: String
    var version: String
    /// The source recording goes to when nobody names one; nil when the server has none.
    var defaultSourceName: String?

    init(_ info: pa_server_info) {
        name = info.server_name.map { String(cString: $0) } ?? "sound server"
        version = info.server_version.map { String(cString: $0) } ?? ""
        defaultSourceName = info.default_source_name.map { String(cString: $0) }
    }
}
