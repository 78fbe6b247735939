import Glibc

/// Where libpulse looks for a PulseAudio-protocol sound server (PulseAudio, or PipeWire's
/// pipewire-pulse), worked out without loading libpulse: the addresses listed in
/// `$PULSE_SERVER`, else the user's socket (`$XDG_RUNTIME_DIR/pulse/native`, or
/// `/run/user/UID/pulse/native` without a runtime directory), then a system-wide server's
/// (`/run/pulse/native`, `/var/run/pulse/native`).
///
/// Two backends ask it: the sound-server backend whether a connection is worth trying, the ALSA
/// backend whether a server answers (a server owns the sound cards, so ALSA's card devices then
/// stay out of discovery: they would be busy, or duplicates of the server's sources).
struct SoundServerAddress: Equatable, Sendable {
    /// One place a server may listen.
    enum Endpoint: Equatable, Sendable {
        /// A Unix socket path.
        case socket(String)
        /// A network address (`tcp:host:4713`, a bare host name): taken as reachable, never
        /// connected to here.
        case network(String)
    }

    /// Where to look, in libpulse's order.
    let endpoints: [Endpoint]

    /// A system-wide server's sockets (`pulseaudio --system`).
    static let systemSockets = ["/run/pulse/native", "/var/run/pulse/native"]

    /// The address this process's libpulse would use, from its environment.
    static func current() -> SoundServerAddress {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        return SoundServerAddress(pulseServer: variable("PULSE_SERVER"), runtimeDirectory: variable("XDG_RUNTIME_DIR"),
                                  userID: getuid())
    }

    /// The address given `PULSE_SERVER` and `XDG_RUNTIME_DIR` (nil or empty when unset) for
    /// user `userID`, with a system-wide server at `systemSockets`.
    init(pulseServer: String?, runtimeDirectory: String?, userID: uid_t, systemSockets: [String] = Self.systemSockets) {
        let listed = (pulseServer ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard listed.isEmpty else {
            endpoints = listed.map(Self.endpoint)
            return
        }
        let runtime = runtimeDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(userID)"
        endpoints = ([runtime + "/pulse/native"] + systemSockets).map(Endpoint.socket)
    }

    /// One `PULSE_SERVER` entry: `unix:/path` or `/path` is a socket, anything else (`tcp:`,
    /// `tcp6:`, a host name) a network address; a `{machine-id}` prefix names the machine the
    /// socket belongs to and is not part of it.
    private static func endpoint(_ entry: String) -> Endpoint {
        let bare = entry.hasPrefix("{") ? String(entry.drop { $0 != "}" }.dropFirst()) : entry
        if bare.hasPrefix("unix:") { return .socket(String(bare.dropFirst("unix:".count))) }
        if bare.hasPrefix("/") { return .socket(bare) }
        return .network(bare)
    }

    /// False only when every endpoint is a socket file that does not exist, so that no server
    /// can answer and a connection is not worth trying.
    var mayBeReachable: Bool { anyEndpoint { access($0, F_OK) == 0 } }

    /// Whether a server answers now: a listed network address, or a socket that accepts a
    /// connection (hung up at once). Never waits: a socket nobody listens on refuses at once.
    var isAnswering: Bool { anyEndpoint(Self.accepts) }

    /// Whether a network address is listed, or a socket passes `check`.
    private func anyEndpoint(_ check: (String) -> Bool) -> Bool {
        endpoints.contains { endpoint in
            switch endpoint {
            case .network: return true
            case .socket(let path): return check(path)
            }
        }
    }

    private static func accepts(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return connected == 0
    }
}
