import CaptureKit
import Foundation
import Glibc

/// A private PipeWire stack for the audio benchmark — PipeWire, WirePlumber (its D-Bus users
/// off), pipewire-pulse, and "tonemic": a real-time 440 Hz source (sox's sine through
/// `pw-cat`) — in the scratch folder, as children of this process. While it runs, this
/// process's `PULSE_SERVER` / `PIPEWIRE_RUNTIME_DIR` point at it, so CaptureKit and the peer
/// tools record from the same source. With `cameras`, PipeWire and WirePlumber only, its V4L2
/// monitor on: a camera node of every `/dev/video*` capture device (the PipeWire camera
/// benchmark's).
final class BenchSoundServer {
    /// The tools it needs (Debian: pipewire pipewire-bin pipewire-pulse wireplumber
    /// pulseaudio-utils sox).
    static let tools = ["pipewire", "wireplumber", "pipewire-pulse", "pw-cat", "pw-cli", "pactl", "sox"]
    static let sourceName = "tonemic"

    private let directory: String
    private let environment: [String: String]
    private var pids: [pid_t] = []
    /// The daemons' processes (PipeWire, WirePlumber, pipewire-pulse): the sound server's share
    /// of a capture's cost.
    private(set) var daemons: [pid_t] = []

    /// Starts the stack; throws when a tool is missing or a daemon does not come up in 10 s.
    init(scratchDirectory: String, cameras: Bool = false) throws {
        directory = "\(scratchDirectory)/sound-server"
        let runtime = "\(directory)/xdg", config = "\(directory)/config"
        for path in [runtime, "\(directory)/home", "\(config)/pipewire/pipewire.conf.d", "\(config)/wireplumber/main.lua.d",
                     "\(config)/wireplumber/bluetooth.lua.d"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try """
            context.objects = [
                { factory = adapter
                  args = { factory.name = support.null-audio-sink node.name = vsink media.class = Audio/Sink
                           audio.rate = 48000 audio.channels = 1 audio.position = [ MONO ] object.linger = true } }
            ]

            """.write(toFile: "\(config)/pipewire/pipewire.conf.d/50-bench.conf", atomically: true, encoding: .utf8)
        try """
            default_access.properties["enable-flatpak-portal"] = false
            alsa_monitor.enabled = false
            v4l2_monitor.enabled = \(cameras)
            libcamera_monitor.enabled = false

            """.write(toFile: "\(config)/wireplumber/main.lua.d/51-no-dbus.lua", atomically: true, encoding: .utf8)
        try "bluez_monitor.enabled = false\n".write(toFile: "\(config)/wireplumber/bluetooth.lua.d/51-no-bluez.lua", atomically: true, encoding: .utf8)
        try "autospawn = no\n".write(toFile: "\(directory)/client.conf", atomically: true, encoding: .utf8)

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["HOME"] = "\(directory)/home"
        environment["XDG_CONFIG_HOME"] = config
        environment["XDG_STATE_HOME"] = "\(directory)/state"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        environment["PIPEWIRE_REMOTE"] = nil
        self.environment = environment
        // This process (CaptureKit) and the peers it starts reach the same server.
        setenv("PULSE_SERVER", "unix:\(runtime)/pulse/native", 1)
        setenv("PULSE_CLIENTCONFIG", "\(directory)/client.conf", 1)
        setenv("PIPEWIRE_RUNTIME_DIR", runtime, 1)

        do {
            try spawn("pipewire", [])
            try waitFor("pipewire") { try ChildProcess.run(Self.path("pw-cli"), ["info", "0"], scratchDirectory: self.directory) }
            try spawn("wireplumber", [])
            guard !cameras else { return }
            try spawn("pipewire-pulse", [])
            try waitFor("pipewire-pulse") { try ChildProcess.run(Self.path("pactl"), ["info"], scratchDirectory: self.directory) }
            try startTone()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// CPU time the daemons have used so far, in nanoseconds (every thread's).
    var cpuNanoseconds: Int64 { daemons.map { ThreadTimes.now(of: $0).total }.reduce(0, +) }

    /// The PipeWire daemon's process (the first child).
    var pipeWireProcess: pid_t? { pids.first }

    /// Stops every child (reverse order) and reaps it.
    func stop() {
        for pid in pids.reversed() { kill(pid, SIGTERM) }
        for pid in pids.reversed() {
            var status: Int32 = 0
            let deadline = MediaTime.now.value + 3_000_000_000
            while waitpid(pid, &status, WNOHANG) == 0 {
                if MediaTime.now.value > deadline { kill(pid, SIGKILL) }
                usleep(5_000)
            }
        }
        pids = []
        daemons = []
        for name in ["PULSE_SERVER", "PULSE_CLIENTCONFIG", "PIPEWIRE_RUNTIME_DIR"] { unsetenv(name) }
    }

    private static func path(_ tool: String) -> String { ChildProcess.locate(tool) ?? tool }

    private func startTone() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchError("pipe failed: \(String(cString: strerror(errno)))") }
        defer { close(ends[0]); close(ends[1]) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        try spawn("sox", ["-q", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", "-",
                          "synth", "36000", "sine", "440", "vol", "0.5"], stdout: ends[1])
        try spawn("pw-cat", ["--playback", "--rate", "48000", "--channels", "1", "--format", "s16", "--target", "0", "-P",
                             "{ media.class=Audio/Source node.name=\(Self.sourceName) node.description=ToneMic priority.session=3000 }", "-"],
                  stdin: ends[0])
    }

    private func spawn(_ tool: String, _ arguments: [String], stdin: Int32? = nil, stdout: Int32? = nil) throws {
        guard let executable = ChildProcess.locate(tool) else { throw BenchError("\(tool) is not installed (see scripts/install-deps.sh)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        let log = "\(directory)/\(tool).log"
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else { posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600) }
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start \(tool): \(String(cString: strerror(spawned)))") }
        pids.append(pid)
        if ["pipewire", "wireplumber", "pipewire-pulse"].contains(tool) { daemons.append(pid) }
    }

    private func waitFor(_ what: String, _ probe: () throws -> ChildProcess.Result) throws {
        let deadline = MediaTime.now.value + 10_000_000_000
        while true {
            if (try? probe()) != nil { return }
            guard MediaTime.now.value < deadline else { throw BenchError("\(what) did not start within 10 s (logs in \(directory))") }
            usleep(20_000)
        }
    }
}
