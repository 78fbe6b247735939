import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

// Private sound servers for the tests: a PulseAudio daemon, or a PipeWire stack (PipeWire +
// WirePlumber without D-Bus + pipewire-pulse), started as children of the test process in a
// scratch directory of their own, and always stopped and reaped. Libpulse clients reach them
// through PULSE_SERVER: child tools through `AudioDaemon.environment`, CaptureKit itself (in
// this process) while a test holds the daemon through `AudioDaemons.withPulseAudio` /
// `withPipeWire`, which point this process at it and let one test at a time do so.

/// A failure of the test harness (a daemon that would not start, a tool that failed).
struct AudioDaemonFailure: Error, CustomStringConvertible {
    var description: String
}

/// A private sound server started for one test.
final class AudioDaemon: @unchecked Sendable {
    enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case pulseAudio, pipeWire
        var description: String { rawValue }
    }

    let kind: Kind
    /// The scratch directory (runtime dir, home, config, logs); removed by ``stop()``.
    let directory: String
    /// The pulse protocol socket: `unix:<directory>/xdg/pulse/native`.
    let serverAddress: String
    /// The environment for child tools (pactl, parecord, arecord…): this process's, pointed
    /// at the daemon.
    let environment: [String: String]
    /// PipeWire's own socket (a PipeWire daemon's).
    var pipeWireSocket: String { "\(directory)/xdg/pipewire-0" }

    private struct Children {
        /// Long-running children in start order (stopped in reverse).
        var processes: [(name: String, process: ChildProcess)] = []
        /// Tone sources: generator and publisher.
        var tones: [String: [ChildProcess]] = [:]
    }

    private let children = Mutex(Children())

    fileprivate init(kind: Kind, directory: String, environment: [String: String]) {
        self.kind = kind
        self.directory = directory
        serverAddress = "unix:\(directory)/xdg/pulse/native"
        self.environment = environment
    }

    deinit { stop() }

    // MARK: Tools

    /// Runs `pactl ARGS` against this server; throws with its error output on failure.
    @discardableResult
    func pactl(_ arguments: String...) throws -> String {
        try AudioDaemons.run("pactl", arguments, environment: environment)
    }

    /// `pactl load-module NAME ARGS`: the module's index.
    func loadModule(_ name: String, _ arguments: String...) throws -> Int {
        let output = try AudioDaemons.run("pactl", ["load-module", name] + arguments, environment: environment)
        guard let index = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw AudioDaemonFailure(description: "pactl load-module \(name) printed '\(output)', not a module index")
        }
        return index
    }

    func unloadModule(_ index: Int) throws {
        try pactl("unload-module", String(index))
    }

    /// The source names `pactl list short sources` shows.
    func sourceNames() throws -> [String] {
        try pactl("list", "short", "sources").split(separator: "\n").compactMap { line in
            line.split(separator: "\t").dropFirst().first.map(String.init)
        }
    }

    /// Polls `pactl` until the server does (or no longer does) list source `name`.
    func waitForSource(_ name: String, present: Bool, timeout: Duration = .seconds(10)) throws {
        try AudioDaemons.poll("source \(name) \(present ? "to appear" : "to go")", timeout: timeout) {
            ((try? sourceNames()) ?? []).contains(name) == present
        }
    }

    /// Adds a real-time source `name` playing a sine at `frequency` Hz with a −6 dBFS peak
    /// (s16, 48 kHz, mono): sox's generator into `pw-cat`, published as an `Audio/Source` node.
    /// PipeWire only (PulseAudio's module-sine-source is not paced in real time; load it with
    /// ``loadModule(_:_:)`` for content-only checks). Returns once the server lists it.
    func addToneSource(name: String, frequency: Int, priority: Int = 1000) throws {
        try startTone(name: name, frequency: frequency, priority: priority)
        try waitForSource(name, present: true)
    }

    /// Starts the tone's processes without waiting for the pulse server to list it (at start-up,
    /// before pipewire-pulse runs).
    fileprivate func startTone(name: String, frequency: Int, priority: Int) throws {
        guard kind == .pipeWire else { throw AudioDaemonFailure(description: "tone sources need PipeWire; use module-sine-source on PulseAudio") }
        let ends = try AudioDaemons.makePipe()
        defer { close(ends[0]); close(ends[1]) }   // the children have their own copies
        let generator = try AudioDaemons.spawn("sox", ["-q", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", "-",
                                                       "synth", "36000", "sine", String(frequency), "vol", "0.5"],
                                               environment: environment, log: "\(directory)/\(name)-sox.log", stdout: ends[1])
        let publisher: ChildProcess
        do {
            publisher = try AudioDaemons.spawn("pw-cat", ["--playback", "--rate", "48000", "--channels", "1", "--format", "s16", "--target", "0",
                                                          "-P", "{ media.class=Audio/Source node.name=\(name) node.description=\(name) priority.session=\(priority) }", "-"],
                                               environment: environment, log: "\(directory)/\(name)-pw-cat.log", stdin: ends[0])
        } catch {
            generator.end(signal: SIGKILL)
            throw error
        }
        children.withLock { $0.tones[name] = [generator, publisher] }
    }

    /// Plays an endless sine at `frequency` Hz (−6 dBFS peak) into the null sink "vsink" in real
    /// time (`pacat`, 20 ms latency): its monitor "vsink.monitor" is then a real-time source on
    /// either server. Stop it with ``removeToneSource(name:)`` and the name "play-FREQUENCY".
    func playTone(frequency: Int) throws {
        let name = "play-\(frequency)"
        let ends = try AudioDaemons.makePipe()
        defer { close(ends[0]); close(ends[1]) }
        let generator = try AudioDaemons.spawn("sox", ["-q", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", "-",
                                                       "synth", "36000", "sine", String(frequency), "vol", "0.5"],
                                               environment: environment, log: "\(directory)/\(name)-sox.log", stdout: ends[1])
        let player: ChildProcess
        do {
            player = try AudioDaemons.spawn("pacat", ["--playback", "-d", "vsink", "--latency-msec=20", "--raw", "--rate=48000",
                                                      "--channels=1", "--format=s16le"],
                                            environment: environment, log: "\(directory)/\(name)-pacat.log", stdin: ends[0])
        } catch {
            generator.end(signal: SIGKILL)
            throw error
        }
        children.withLock { $0.tones[name] = [generator, player] }
    }

    /// Stops a tone source made by ``addToneSource(name:frequency:priority:)``.
    func removeToneSource(name: String) {
        let processes = children.withLock { $0.tones.removeValue(forKey: name) } ?? []
        for process in processes.reversed() { process.end(signal: SIGKILL) }
    }

    /// Kills the server at once (SIGKILL): pulseaudio, or pipewire-pulse and pipewire — the
    /// sound server going away under its clients.
    func kill() {
        let servers = children.withLock { children in
            children.processes.filter { ["pulseaudio", "pipewire-pulse", "pipewire"].contains($0.name) }.map(\.process)
        }
        for process in servers { process.end(signal: SIGKILL) }
    }

    /// Stops the child `name` (SIGTERM) and waits for it: one part of the stack going away.
    func end(_ name: String) {
        let process = children.withLock { children -> ChildProcess? in
            guard let index = children.processes.firstIndex(where: { $0.name == name }) else { return nil }
            return children.processes.remove(at: index).process
        }
        process?.end(signal: SIGTERM)
    }

    /// Stops everything (tones first, then the daemons in reverse start order) and removes the
    /// scratch directory. Idempotent.
    func stop() {
        let (tones, processes) = children.withLock { children -> ([ChildProcess], [ChildProcess]) in
            defer { children = Children() }
            return (children.tones.values.flatMap { $0 }, children.processes.reversed().map(\.process))
        }
        // Tone generators hold no state worth a clean exit (sox finishes its write first).
        for process in tones { process.end(signal: SIGKILL) }
        for process in processes { process.end(signal: SIGTERM) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    func adopt(_ name: String, _ process: ChildProcess) {
        children.withLock { $0.processes.append((name, process)) }
    }

    /// Whether the child `name` still runs; its log when it does not (for failures).
    func checkAlive(_ name: String) throws {
        guard let process = children.withLock({ $0.processes.first { $0.name == name }?.process }) else { return }
        if let status = process.exitStatus() {
            let log = (try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? ""
            throw AudioDaemonFailure(description: "\(name) exited (status \(status)): \(log.suffix(2000))")
        }
    }
}

/// Starts and stops private sound servers; see the file's header.
enum AudioDaemons {
    /// The tools the daemons need.
    static let tools = ["pulseaudio", "pactl", "pipewire", "wireplumber", "pipewire-pulse", "pw-cat", "pw-cli", "pw-metadata", "pacat", "sox"]

    /// Whether every tool is installed (and every one of `extra`). Missing tools fail the test in
    /// CI (`CI=true`); elsewhere the caller skips (returns early) when this is false.
    static func requireTools(also extra: [String] = []) throws -> Bool {
        let missing = (tools + extra).filter { executable($0) == nil }
        guard missing.isEmpty else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                throw AudioDaemonFailure(description: "these tests need \(missing.joined(separator: ", ")) (scripts/install-deps.sh installs them)")
            }
            return false
        }
        return true
    }

    // MARK: Starting

    /// A private PulseAudio: null sink "vsink" (s16 48 kHz mono; its monitor "vsink.monitor"),
    /// "sine440" (module-sine-source, 440 Hz, the default source) and "pipemic"
    /// (module-pipe-source reading `<directory>/pipemic.fifo`).
    static func startPulseAudio() throws -> AudioDaemon {
        let daemon = try makeDaemon(.pulseAudio)
        let fifo = "\(daemon.directory)/pipemic.fifo"
        try """
            load-module module-native-protocol-unix auth-anonymous=1
            load-module module-null-sink sink_name=vsink rate=48000 channels=1 format=s16le
            load-module module-sine-source source_name=sine440 rate=48000 frequency=440
            load-module module-pipe-source source_name=pipemic file=\(fifo) format=s16le rate=48000 channels=1
            set-default-sink vsink
            set-default-source sine440

            """.write(toFile: "\(daemon.directory)/pa.pa", atomically: true, encoding: .utf8)
        do {
            try launch(daemon, "pulseaudio", ["-n", "-F", "\(daemon.directory)/pa.pa", "--daemonize=no", "--exit-idle-time=-1",
                                              "--use-pid-file=no", "--system=no", "--log-target=stderr", "--log-level=notice"])
            try poll("pulseaudio to answer", check: { try daemon.checkAlive("pulseaudio") }) {
                (try? run("pactl", ["info"], environment: daemon.environment)) != nil
            }
        } catch {
            daemon.stop()
            throw error
        }
        return daemon
    }

    /// A private PipeWire stack: PipeWire, WirePlumber (its D-Bus users disabled), the null
    /// sink "vsink", the real-time "tonemic" (a −6 dBFS sine at `toneFrequency`, the default
    /// source) and pipewire-pulse.
    ///
    /// With `camera`, also PipeWire's video test source as a camera node ("testcam", "Test
    /// Camera": media class Video/Source, role Camera; RGB and UYVY at any size, 25 fps by default).
    /// With `portal`, a private session bus, WirePlumber's portal access rules and the Camera
    /// portal with its camera (see CameraPortalDaemons.swift). With `v4l2Cameras`, WirePlumber's
    /// V4L2 monitor makes a camera node of every `/dev/video*` capture device (the test VM's).
    static func startPipeWire(toneFrequency: Int = 440, camera: Bool = false, portal: Bool = false,
                              v4l2Cameras: Bool = false) throws -> AudioDaemon {
        let daemon = try makeDaemon(.pipeWire, sessionBus: portal)
        let config = "\(daemon.directory)/config"
        do {
            if portal { try startSessionBus(daemon) }
            try FileManager.default.createDirectory(atPath: "\(config)/pipewire/pipewire.conf.d", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(config)/wireplumber/main.lua.d", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(config)/wireplumber/bluetooth.lua.d", withIntermediateDirectories: true)
            try """
                context.objects = [
                    { factory = adapter
                      args = { factory.name = support.null-audio-sink node.name = vsink node.description = "Virtual sink"
                               media.class = Audio/Sink audio.rate = 48000 audio.channels = 1 audio.position = [ MONO ]
                               object.linger = true monitor.channel-volumes = true } }
                ]

                """.write(toFile: "\(config)/pipewire/pipewire.conf.d/50-virtual-devices.conf", atomically: true, encoding: .utf8)
            if camera { try testCamera.write(toFile: "\(config)/pipewire/pipewire.conf.d/60-test-camera.conf", atomically: true, encoding: .utf8) }
            // WirePlumber 0.4 exits without a session bus unless its D-Bus users are off; with
            // the portal's bus, its portal access rules (the permission store's) stay on.
            try """
                \(portal ? "" : #"default_access.properties["enable-flatpak-portal"] = false"#)
                alsa_monitor.enabled = false
                v4l2_monitor.enabled = \(v4l2Cameras)
                libcamera_monitor.enabled = false

                """.write(toFile: "\(config)/wireplumber/main.lua.d/51-no-dbus.lua", atomically: true, encoding: .utf8)
            try "bluez_monitor.enabled = false\n".write(toFile: "\(config)/wireplumber/bluetooth.lua.d/51-no-bluez.lua", atomically: true, encoding: .utf8)

            try launch(daemon, "pipewire", [])
            try poll("pipewire to answer", check: { try daemon.checkAlive("pipewire") }) {
                (try? run("pw-cli", ["info", "0"], environment: daemon.environment)) != nil
            }
            // WirePlumber is ready once it has chosen the default sink (it has seen vsink).
            try launch(daemon, "wireplumber", [])
            try poll("wireplumber to pick a default sink", check: { try daemon.checkAlive("wireplumber") }) {
                ((try? run("pw-metadata", ["0"], environment: daemon.environment)) ?? "").contains("default.audio.sink")
            }
            try daemon.startTone(name: "tonemic", frequency: toneFrequency, priority: 3000)
            try poll("tonemic to become the default source") {
                ((try? run("pw-metadata", ["0", "default.audio.source"], environment: daemon.environment)) ?? "").contains("tonemic")
            }
            try launch(daemon, "pipewire-pulse", [])
            try poll("pipewire-pulse to answer", check: { try daemon.checkAlive("pipewire-pulse") }) {
                (try? run("pactl", ["info"], environment: daemon.environment)) != nil
            }
            if portal { try startCameraPortal(daemon) }
        } catch {
            daemon.stop()
            throw error
        }
        return daemon
    }

    /// The configuration of the test camera node (the SPA plugin is not mapped by default).
    static let testCamera = """
        context.spa-libs = { videotestsrc = videotestsrc/libspa-videotestsrc }
        context.objects = [
            { factory = spa-node-factory
              args = { factory.name = videotestsrc node.name = testcam node.description = "Test Camera"
                       media.class = Video/Source media.role = Camera object.linger = true } }
        ]

        """

    private static func makeDaemon(_ kind: AudioDaemon.Kind, sessionBus: Bool = false) throws -> AudioDaemon {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/ck-audio-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw AudioDaemonFailure(description: "mkdtemp in \(base) failed: errno \(errno)")
        }
        let directory = String(cString: made)
        for sub in ["xdg", "home", "state", "config"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        try "autospawn = no\n".write(toFile: "\(directory)/client.conf", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = "\(directory)/xdg"
        environment["HOME"] = "\(directory)/home"
        environment["XDG_CONFIG_HOME"] = "\(directory)/config"
        environment["XDG_STATE_HOME"] = "\(directory)/state"
        environment["PULSE_SERVER"] = "unix:\(directory)/xdg/pulse/native"
        environment["PULSE_CLIENTCONFIG"] = "\(directory)/client.conf"
        // A private bus (started by startSessionBus), or none: fail fast instead of autolaunching.
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus ? "unix:path=\(directory)/xdg/bus" : "disabled:"
        environment["PIPEWIRE_REMOTE"] = nil
        environment["PULSE_SOURCE"] = nil
        environment["PULSE_SINK"] = nil
        return AudioDaemon(kind: kind, directory: directory, environment: environment)
    }

    /// Starts `tool` (a name on PATH or a path) as a child of `daemon`, named and logged by its
    /// file name.
    static func launch(_ daemon: AudioDaemon, _ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let name = URL(fileURLWithPath: tool).lastPathComponent
        daemon.adopt(name, try spawn(tool, arguments, environment: environment ?? daemon.environment, log: "\(daemon.directory)/\(name).log"))
    }

    // MARK: This process

    /// One daemon visible to this process at a time: CaptureKit's discovery is process-wide.
    private static let gate = SoundServerGate()

    /// Starts a private PulseAudio, points this process at it for `body`, then stops it.
    static func withPulseAudio<R>(_ body: (AudioDaemon) async throws -> R) async throws -> R {
        try await withDaemon({ try startPulseAudio() }, body)
    }

    /// Starts a private PipeWire stack, points this process at it for `body`, then stops it.
    /// With `camera`, the stack has the test camera node and this process's PipeWire clients
    /// (`$PIPEWIRE_REMOTE`) go to it as well.
    /// With `portal`, this process's session bus is the stack's too.
    static func withPipeWire<R>(toneFrequency: Int = 440, camera: Bool = false, portal: Bool = false, v4l2Cameras: Bool = false,
                                _ body: (AudioDaemon) async throws -> R) async throws -> R {
        try await withDaemon({ try startPipeWire(toneFrequency: toneFrequency, camera: camera, portal: portal, v4l2Cameras: v4l2Cameras) }, body)
    }

    /// Either daemon by kind.
    static func with<R>(_ kind: AudioDaemon.Kind, _ body: (AudioDaemon) async throws -> R) async throws -> R {
        switch kind {
        case .pulseAudio: return try await withPulseAudio(body)
        case .pipeWire: return try await withPipeWire(body)
        }
    }

    /// Runs `body` while no test daemon is visible to this process.
    static func withoutSoundServer<R>(_ body: () async throws -> R) async rethrows -> R {
        await gate.acquire()
        do {
            let result = try await body()
            await gate.release()
            return result
        } catch {
            await gate.release()
            throw error
        }
    }

    private static func withDaemon<R>(_ start: () throws -> AudioDaemon, _ body: (AudioDaemon) async throws -> R) async throws -> R {
        await gate.acquire()
        let daemon: AudioDaemon
        do {
            daemon = try start()
        } catch {
            await gate.release()
            throw error
        }
        let saved = ["PULSE_SERVER", "PULSE_CLIENTCONFIG", "PIPEWIRE_REMOTE", "DBUS_SESSION_BUS_ADDRESS"].map { (name: String) -> (String, String?) in
            (name, ProcessInfo.processInfo.environment[name])
        }
        setenv("PULSE_SERVER", daemon.serverAddress, 1)
        setenv("PULSE_CLIENTCONFIG", "\(daemon.directory)/client.conf", 1)
        if daemon.kind == .pipeWire { setenv("PIPEWIRE_REMOTE", daemon.pipeWireSocket, 1) }
        if let bus = daemon.environment["DBUS_SESSION_BUS_ADDRESS"], bus != "disabled:" { setenv("DBUS_SESSION_BUS_ADDRESS", bus, 1) }
        func finish() async {
            daemon.stop()
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
            await gate.release()
        }
        do {
            let result = try await body(daemon)
            await finish()
            return result
        } catch {
            await finish()
            throw error
        }
    }

    // MARK: Processes

    /// The path of `tool` on PATH (or `tool` itself, a path), or nil.
    static func executable(_ tool: String) -> String? {
        if tool.contains("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `tool` with its output appended to `log` (and `stdin`/`stdout` when given).
    static func spawn(_ tool: String, _ arguments: [String], environment: [String: String], log: String,
                      stdin: Int32? = nil, stdout: Int32? = nil) throws -> ChildProcess {
        guard let path = executable(tool) else { throw AudioDaemonFailure(description: "\(tool) is not installed") }
        let logFD = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { throw AudioDaemonFailure(description: "cannot open \(log): errno \(errno)") }
        defer { close(logFD) }
        return try ChildProcess(path: path, arguments: arguments, environment: environment,
                                stdin: stdin, stdout: stdout ?? logFD, stderr: logFD)
    }

    /// Runs `tool` to completion; its standard output, or a failure with its error output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]) throws -> String {
        guard let path = executable(tool) else { throw AudioDaemonFailure(description: "\(tool) is not installed") }
        let output = try makePipe()
        let errors: [Int32]
        do { errors = try makePipe() } catch { close(output[0]); close(output[1]); throw error }
        defer { close(output[0]); close(errors[0]) }
        let child: ChildProcess
        do {
            child = try ChildProcess(path: path, arguments: arguments, environment: environment, stdin: nil, stdout: output[1], stderr: errors[1])
        } catch {
            close(output[1]); close(errors[1])
            throw error
        }
        close(output[1]); close(errors[1])
        let data = readAll(output[0]), messages = readAll(errors[0])
        let status = child.wait()
        guard status == 0 else {
            throw AudioDaemonFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(String(decoding: messages, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A pipe whose ends other children do not inherit (close-on-exec).
    static func makePipe() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw AudioDaemonFailure(description: "pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    private static func readAll(_ fd: Int32) -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { data += chunk[0..<count] } else if count < 0, errno == EINTR { continue } else { return data }
        }
    }

    /// Polls `condition` every 20 ms until it holds; `check` may throw to stop early (a daemon
    /// that died). Throws after `timeout`.
    static func poll(_ what: String, timeout: Duration = .seconds(10), check: () throws -> Void = {},
                     _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            try check()
            guard ContinuousClock.now < deadline else { throw AudioDaemonFailure(description: "timed out waiting for \(what)") }
            usleep(20_000)
        }
    }
}

/// An async mutex: one holder at a time, waiters resumed in order.
actor SoundServerGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}

/// A child started with `posix_spawn` and reaped with `waitpid` (not Foundation's `Process`:
/// reaping must not depend on a run loop or a SIGCHLD handler in a busy test process).
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private let status = Mutex<Int32?>(nil)

    init(path: String, arguments: [String], environment: [String: String], stdin: Int32?, stdout: Int32, stderr: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else { throw AudioDaemonFailure(description: "posix_spawn \(path) failed: errno \(result)") }
        self.pid = pid
    }

    /// The exit status once the child has ended (reaping it), nil while it runs.
    func exitStatus() -> Int32? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = Self.decode(raw) }
            }
            return status
        }
    }

    /// Waits for the child to end; its exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            let decoded = Self.decode(raw)
            status = decoded
            return decoded
        }
    }

    /// Sends `signal`, gives the child 3 s, then SIGKILLs it; always reaps.
    func end(signal: Int32) {
        guard exitStatus() == nil else { return }
        kill(pid, signal)
        let deadline = ContinuousClock.now + .seconds(3)
        while exitStatus() == nil, ContinuousClock.now < deadline { usleep(5_000) }
        if exitStatus() == nil { kill(pid, SIGKILL) }
        wait()
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    deinit { end(signal: SIGKILL) }
}
