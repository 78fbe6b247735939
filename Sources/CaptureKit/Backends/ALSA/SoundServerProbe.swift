import Glibc

/// Whether a PulseAudio-protocol sound server (PulseAudio, or PipeWire's pipewire-pulse) answers
/// on its socket. When one does, it owns the sound cards and its sources are the microphones,
/// so ALSA's card devices stay out of discovery (they would be busy, or duplicates).
enum SoundServerProbe {
    /// Connects to the server's Unix socket and hangs up: never waits (a socket nobody listens
    /// on refuses at once). A `PULSE_SERVER` naming a TCP server counts as reachable.
    static var isReachable: Bool { isReachable(paths: socketPaths()) }

    /// Whether a server answers on one of `paths` (Unix socket paths, or `tcp:` addresses).
    static func isReachable(paths: [String]) -> Bool {
        paths.contains { path in
            if path.hasPrefix("tcp:") || path.contains("[") { return true }
            return canConnect(toUnixSocket: path)
        }
    }

    /// Where the server's socket is: `PULSE_SERVER` (which may list several), else
    /// `$XDG_RUNTIME_DIR/pulse/native`, else `/run/user/UID/pulse/native`.
    static func socketPaths() -> [String] {
        if let server = getenv("PULSE_SERVER").map({ String(cString: $0) }), !server.isEmpty {
            return server.split(separator: " ").map { word in
                let text = String(word)
                return text.hasPrefix("unix:") ? String(text.dropFirst(5)) : text.hasPrefix("/") ? text : "tcp:" + text
            }
        }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            return [runtime + "/pulse/native"]
        }
        return ["/run/user/\(getuid())/pulse/native"]
    }

    private static func canConnect(toUnixSocket path: String) -> Bool {
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
