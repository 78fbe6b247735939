import Foundation

/// Which way a sound-server source (`pulse:<name>`) is recorded. Discovery always goes through
/// libpulse, which serves PulseAudio and PipeWire's pulse server alike; recording takes the
/// cheaper way when there is one:
///
/// - ``pipeWire``: when the server is PipeWire's (`pipewire-pulse`) and the PipeWire daemon is
///   reachable (``PipeWireDaemonAddress``), a native `pw_stream` on the node of that name
///   (the source's name is its `node.name`; a monitor records its sink, `stream.capture.sink`),
///   in mono or stereo. No pulse protocol in between: half the CPU of libpulse's route, client
///   and server together (<doc:Performance>). If the stream cannot be opened (the daemon found is another one than
///   the pulse server's), recording falls back to libpulse.
/// - ``pulse``: a libpulse record stream — PulseAudio, more than two channels, or when
///   `CAPTUREKIT_SOUND_SERVER_ROUTE=pulse` asks for it.
///
/// Both routes deliver alike: reads of about 10 ms (512 frames at 48 kHz through PipeWire, whose
/// quanta are powers of two), the same timeline (``SoundServerDelivery``), interruption when the
/// source goes and resumption when it returns.
enum SoundServerRoute: String, Sendable, Equatable {
    case pipeWire
    case pulse

    /// The route for recording `channelCount` channels from a server that calls itself
    /// `serverName` (`pa_server_info.server_name`: "PulseAudio (on PipeWire 0.3.65)").
    static func route(serverName: String, channelCount: Int,
                      environment: [String: String] = ProcessInfo.processInfo.environment) -> SoundServerRoute {
        guard environment["CAPTUREKIT_SOUND_SERVER_ROUTE"] != "pulse", serverName.contains("on PipeWire"),
              (1...2).contains(channelCount), PipeWireDaemonAddress.current(in: environment) != nil else { return .pulse }
        return .pipeWire
    }
}
