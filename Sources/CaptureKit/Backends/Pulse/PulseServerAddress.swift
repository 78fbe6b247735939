import Glibc

/// Where libpulse will look for the sound server, checked without libpulse: `$PULSE_SERVER`
/// (a list of addresses), else the user's `$XDG_RUNTIME_DIR/pulse/native` and the system-wide
/// `/run/pulse/native`.
enum PulseServerAddress {
    /// False only when every address is a local socket that does not exist, i.e. no server
    /// can answer; a network address (`tcp:host`) counts as possibly reachable.
    static func mayBeReachable() -> Bool {
        let listed = (getenv("PULSE_SERVER").map { String(cString: $0) } ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var sockets: [String] = []
        if listed.isEmpty {
            if let runtime = getenv("XDG_RUNTIME_DIR") { sockets.append(String(cString: runtime) + "/pulse/native") }
            sockets += ["/run/pulse/native", "/var/run/pulse/native"]
        } else {
            for address in listed {
                // "{machine-id}unix:/path" names the machine the socket belongs to.
                let bare = address.hasPrefix("{") ? String(address.drop { $0 != "}" }.dropFirst()) : address
                if bare.hasPrefix("unix:") {
                    sockets.append(String(bare.dropFirst("unix:".count)))
                } else if bare.hasPrefix("/") {
                    sockets.append(bare)
                } else {
                    return true
                }
            }
        }
        return sockets.contains { access($0, F_OK) == 0 }
    }
}
