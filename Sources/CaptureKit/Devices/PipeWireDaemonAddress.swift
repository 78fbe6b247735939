import Foundation

/// Where libpipewire looks for the user's PipeWire daemon, worked out without loading it: what
/// `$PIPEWIRE_REMOTE` names, else `pipewire-0` in `$PIPEWIRE_RUNTIME_DIR` or `$XDG_RUNTIME_DIR`
/// when that socket exists.
///
/// Two backends ask it: the PipeWire camera backend where to connect, the sound-server backend
/// whether PipeWire's own stream can record a source (``SoundServerRoute``).
enum PipeWireDaemonAddress {
    /// The daemon's socket (or the remote's name, as `$PIPEWIRE_REMOTE` gives it), nil when there
    /// is none to try.
    static func current(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let remote = environment["PIPEWIRE_REMOTE"], !remote.isEmpty { return remote }
        guard let runtime = environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"] else { return nil }
        let socket = "\(runtime)/pipewire-0"
        return FileManager.default.fileExists(atPath: socket) ? socket : nil
    }
}
