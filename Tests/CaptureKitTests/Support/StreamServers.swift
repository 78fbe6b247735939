import Foundation
import Glibc
import Synchronization
import Testing

// Real media servers on 127.0.0.1 for the stream output's tests, each a child of the test
// process in a scratch folder of its own, on ports picked free, always stopped and reaped:
// nginx with the RTMP module (recording what is published, serving HLS over HTTP),
// srt-live-transmit as an SRT listener, FFmpeg as an RTSP server taking RECORD, and Python's
// HTTP server for HLS folders.
// Readiness is a port that answers, never a sleep.

/// A port on 127.0.0.1 that nobody had bound a moment ago.
func freeTCPPort() throws -> Int { try freePort(type: Int32(SOCK_STREAM.rawValue)) }

/// A UDP port on 127.0.0.1 that nobody had bound a moment ago.
func freeUDPPort() throws -> Int { try freePort(type: Int32(SOCK_DGRAM.rawValue)) }

private func freePort(type: Int32) throws -> Int {
    let (fd, port) = try loopbackSocket(type: type)
    close(fd)
    return port
}

/// A socket of `type` bound to an ephemeral port on 127.0.0.1, and that port.
func loopbackSocket(type: Int32) throws -> (descriptor: Int32, port: Int) {
    let fd = socket(AF_INET, type, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else {
        close(fd)
        throw AudioDaemonFailure(description: "cannot bind a port on 127.0.0.1")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func acceptsConnections(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// Whether a UDP socket is bound to `port` (from /proc/net/udp: SRT listens without answering).
func udpPortIsBound(_ port: Int) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return false }
    let suffix = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().contains { line in
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first?.hasSuffix(suffix) == true
    }
}

/// Waits (at most `timeout`) for `condition`; throws naming `what` and the log when it never holds.
func waitForServer(_ what: String, log: String, timeout: Duration = .seconds(15), _ condition: () -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw AudioDaemonFailure(description: "\(what) did not start within \(timeout): \(text.suffix(2000))")
        }
        usleep(10_000)
    }
}

/// A scratch folder of its own for one server.
func serverDirectory(_ label: String) throws -> String {
    let directory = FileFixtures.directory.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}

// MARK: nginx-rtmp

/// nginx with the RTMP module: application `live` records every published stream
/// (`rec/NAME-TIME.flv`) and writes HLS (`hls/NAME.m3u8`), which its HTTP server serves at
/// `/hls/`. Runs in its own process group, so ``kill()`` takes the master and its workers at once.
final class NginxRTMPServer: @unchecked Sendable {
    // Unchecked Sendable: the process handle is replaced only by restart(), called by the one test that owns the server.
    /// The configuration written and the command that runs it, for a test that starts nginx
    /// itself (inside a network namespace).
    struct Plan {
        let directory: String
        let rtmpPort: Int
        let httpPort: Int
        let commandLine: [String]

        func publishURL(stream: String) -> String { "rtmp://127.0.0.1:\(rtmpPort)/live/\(stream)" }
    }

    let plan: Plan
    private var process: ChildProcess?

    var rtmpPort: Int { plan.rtmpPort }
    var httpPort: Int { plan.httpPort }

    /// Writes a configuration (ours, or `configuration` — a user's, like the streaming
    /// article's — with its ports and paths moved into the scratch folder) and the command.
    static func prepare(configuration: String? = nil) throws -> Plan {
        guard let nginx = AudioDaemons.executable("nginx") ?? ["/usr/sbin/nginx"].first(where: FileManager.default.isExecutableFile) else {
            throw AudioDaemonFailure(description: "nginx is not installed (apt-get install nginx libnginx-mod-rtmp)")
        }
        let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
        guard FileManager.default.fileExists(atPath: module) else { throw AudioDaemonFailure(description: "libnginx-mod-rtmp is not installed") }
        let directory = try serverDirectory("nginx")
        for folder in ["rec", "hls", "temp"] { try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true) }
        let rtmpPort = try freeTCPPort(), httpPort = try freeTCPPort()
        var text: String
        if let configuration {
            text = configuration
                .replacingOccurrences(of: "load_module modules/", with: "load_module /usr/lib/nginx/modules/")
                .replacingOccurrences(of: "user www-data;", with: "user root;")
                .replacingOccurrences(of: "listen 1935;", with: "listen 127.0.0.1:\(rtmpPort);")
                .replacingOccurrences(of: "listen 8080;", with: "listen 127.0.0.1:\(httpPort);")
                .replacingOccurrences(of: "include mime.types;", with: "include /etc/nginx/mime.types;")
                .replacingOccurrences(of: "/var/www", with: directory)
        } else {
            text = """
                load_module \(module);
                user root;
                worker_processes 1;
                events { worker_connections 256; }
                rtmp {
                    server {
                        listen 127.0.0.1:\(rtmpPort);
                        application live {
                            live on;
                            record all; record_path \(directory)/rec; record_unique on; record_suffix .flv;
                            hls on; hls_path \(directory)/hls; hls_fragment 1s; hls_playlist_length 10s; hls_cleanup off;
                        }
                    }
                }
                http {
                    access_log off;
                    server {
                        listen 127.0.0.1:\(httpPort);
                        location /hls {
                            root \(directory);
                            types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
                        }
                    }
                }

                """
        }
        // The HTTP temp folders inside the scratch folder, not the system's.
        if let http = text.range(of: "http {") {
            let temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(directory)/temp/\($0);" }.joined(separator: " ")
            text.replaceSubrange(http, with: "http { \(temps)")
        }
        try text.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        let global = "daemon off; master_process on; pid \(directory)/nginx.pid; error_log \(directory)/error.log info;"
        return Plan(directory: directory, rtmpPort: rtmpPort, httpPort: httpPort,
                    commandLine: [nginx, "-p", directory, "-c", "\(directory)/nginx.conf", "-g", global])
    }

    /// Starts nginx and waits until both ports answer.
    static func start(configuration: String? = nil) throws -> NginxRTMPServer {
        let server = NginxRTMPServer(plan: try prepare(configuration: configuration))
        try server.launch()
        return server
    }

    private init(plan: Plan) { self.plan = plan }

    deinit { stop() }

    private func launch() throws {
        // setsid: nginx leads a process group of its own (its workers join it).
        let log = "\(plan.directory)/stderr.log"
        process = try AudioDaemons.spawn("setsid", plan.commandLine, environment: ProcessInfo.processInfo.environment, log: log)
        try waitForServer("nginx", log: "\(plan.directory)/error.log") { acceptsConnections(plan.rtmpPort) && acceptsConnections(plan.httpPort) }
    }

    /// The URL to publish `stream` to.
    func publishURL(stream: String) -> String { plan.publishURL(stream: stream) }

    /// nginx's HLS playlist for `stream`, over its HTTP server.
    func hlsURL(stream: String) -> String { "http://127.0.0.1:\(plan.httpPort)/hls/\(stream).m3u8" }

    /// The FLV files nginx recorded of `stream`, oldest first.
    func recordings(stream: String) -> [URL] {
        let folder = "\(plan.directory)/rec"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("\(stream)-") && $0.hasSuffix(".flv") }.sorted().map { URL(fileURLWithPath: "\(folder)/\($0)") }
    }

    /// Kills master and workers at once (a crash: nothing is closed cleanly) and reaps them.
    func kill() {
        guard let process else { return }
        Glibc.kill(-process.pid, SIGKILL)
        process.wait()
        self.process = nil
        // The workers are gone with the group; wait until the port is free again.
        let deadline = ContinuousClock.now + .seconds(5)
        while acceptsConnections(plan.rtmpPort), ContinuousClock.now < deadline { usleep(10_000) }
    }

    /// Starts nginx again on the same ports and folders.
    func restart() throws {
        kill()
        try launch()
    }

    /// Stops nginx (its group) and reaps it.
    func stop() {
        guard let process else { return }
        Glibc.kill(-process.pid, SIGTERM)
        process.end(signal: SIGTERM)
        Glibc.kill(-process.pid, SIGKILL)
        self.process = nil
    }

    /// nginx's error log.
    var log: String { (try? String(contentsOfFile: "\(plan.directory)/error.log", encoding: .utf8)) ?? "" }
}

/// The argv prefix that runs a command in a network namespace of its own whose loopback is
/// limited to `rateKbit` (netem where the kernel has it, else a token bucket), with
/// `server` started inside it first (and stopped after) and `port` answering: the congested
/// link between a camera and its media server.
func throttledNamespaceCommand(rateKbit: Int, starting server: [String], waitingForTCPPort port: Int) throws -> [String] {
    guard let unshare = AudioDaemons.executable("unshare"), AudioDaemons.executable("tc") != nil, AudioDaemons.executable("ip") != nil else {
        throw AudioDaemonFailure(description: "unshare, ip and tc are needed (util-linux, iproute2)")
    }
    let quoted = server.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
    let script = """
        set -e
        ip link set lo up
        # Small socket buffers, as on a real uplink's first hop: a loopback's grow to megabytes,
        # which would hide the congestion from the sender for minutes.
        sysctl -q -w net.ipv4.tcp_wmem="4096 16384 65536" net.ipv4.tcp_rmem="4096 16384 65536"
        tc qdisc add dev lo root netem rate \(rateKbit)kbit 2>/dev/null || tc qdisc add dev lo root tbf rate \(rateKbit)kbit burst 16kb latency 400ms
        \(quoted) > /dev/null 2>&1 &
        server=$!
        i=0
        until ss -ltn | grep -q ":\(port) "; do i=$((i+1)); [ $i -lt 500 ] || { echo "the server did not start" >&2; exit 70; }; sleep 0.02; done
        set +e
        "$@"
        status=$?
        kill $server; wait $server
        exit $status
        """
    return [unshare, "-n", "sh", "-c", script, "sh"]
}

// MARK: SRT

/// srt-live-transmit listening for one SRT caller, writing what it receives (MPEG-TS) to a file.
final class SRTReceiver: @unchecked Sendable {
    // Unchecked Sendable: set up in start(); stop() is idempotent behind the process's own lock.
    let port: Int
    let passphrase: String?
    let receivedFile: URL
    private let process: ChildProcess

    /// The URL a caller publishes to.
    var url: String {
        "srt://127.0.0.1:\(port)?mode=caller" + (passphrase.map { "&passphrase=\($0)&pbkeylen=16" } ?? "")
    }

    static func start(passphrase: String? = nil) throws -> SRTReceiver { try SRTReceiver(passphrase: passphrase) }

    private init(passphrase: String?) throws {
        let directory = try serverDirectory("srt")
        port = try freeUDPPort()
        self.passphrase = passphrase
        receivedFile = URL(fileURLWithPath: "\(directory)/received.ts")
        let output = open(receivedFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw AudioDaemonFailure(description: "cannot create \(receivedFile.path)") }
        defer { close(output) }
        let source = "srt://:\(port)?mode=listener" + (passphrase.map { "&passphrase=\($0)&pbkeylen=16" } ?? "")
        process = try AudioDaemons.spawn("srt-live-transmit", ["-q", source, "file://con"], environment: ProcessInfo.processInfo.environment,
                                         log: "\(directory)/srt.log", stdout: output)
        try waitForServer("srt-live-transmit", log: "\(directory)/srt.log") { udpPortIsBound(port) }
    }

    deinit { stop() }

    /// Ends the receiver; its file holds everything received.
    func stop() { process.end(signal: SIGINT) }
}

/// A UDP relay (Tests/Network/udp_delay_relay.py) on 127.0.0.1 that holds every datagram
/// `milliseconds` each way on its way to `targetPort`: a link with a round trip of twice that
/// (the kernel's netem, which would do it, is missing from some machines).
final class UDPDelayRelay: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; stop() is idempotent behind the process's own lock.
    let port: Int
    private let process: ChildProcess

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Network/udp_delay_relay.py").path

    init(to targetPort: Int, milliseconds: Int) throws {
        let log = "\(try serverDirectory("udp-relay"))/relay.log"
        port = try freeUDPPort()
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { close(fd) }
        process = try ChildProcess(path: "/usr/bin/python3", arguments: [Self.script, String(port), String(targetPort), String(milliseconds)],
                                   environment: ProcessInfo.processInfo.environment, stdin: nil, stdout: fd, stderr: fd)
        try waitForServer("the UDP relay", log: log) { [port] in udpPortIsBound(port) }
    }

    deinit { stop() }

    func stop() { process.end(signal: SIGTERM) }
}

// MARK: RTSP

/// An RTSP server that accepts one RECORD session at /cam — FFmpeg in listen mode
/// (`ffmpeg -rtsp_flags listen`), copying what it receives into a Matroska file. (GStreamer's
/// RTSP server in RECORD mode, with rtph264depay ! h264parse, kept only the first access unit
/// of FFmpeg's own RTP H.264 here.)
final class RTSPRecordServer: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; stop() is idempotent.
    let port: Int
    let receivedFile: URL
    private let process: ChildProcess

    var publishURL: String { "rtsp://127.0.0.1:\(port)/cam" }

    static func start(transport: String) throws -> RTSPRecordServer { try RTSPRecordServer(transport: transport) }

    private init(transport: String) throws {
        let directory = try serverDirectory("rtsp")
        port = try freeTCPPort()
        receivedFile = URL(fileURLWithPath: "\(directory)/received.mkv")
        process = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-rtsp_flags", "listen", "-rtsp_transport", transport,
                                                    "-i", "rtsp://127.0.0.1:\(port)/cam", "-c", "copy", "-y", receivedFile.path],
                                         environment: ProcessInfo.processInfo.environment, log: "\(directory)/ffmpeg.log")
        // Not a test connection: the listener takes the first one that comes as its client.
        try waitForServer("ffmpeg's RTSP listener", log: "\(directory)/ffmpeg.log") { tcpPortIsListening(port) }
    }

    deinit { stop() }

    /// Waits (at most 10 s) for the session to end — the client's TEARDOWN ends ffmpeg — and
    /// for the file to be closed.
    func stop() {
        let deadline = ContinuousClock.now + .seconds(10)
        while process.exitStatus() == nil, ContinuousClock.now < deadline { usleep(10_000) }
        process.end(signal: SIGINT)
    }
}

/// Whether a TCP socket listens on 127.0.0.1 or any address at `port` (from /proc/net/tcp,
/// without connecting: some servers take the first connection as their client).
func tcpPortIsListening(_ port: Int) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
    let suffix = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().contains { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        return fields.count > 3 && fields[1].hasSuffix(suffix) && fields[3] == "0A"
    }
}

// MARK: HTTP

/// Python's HTTP server serving a folder on 127.0.0.1.
final class StaticHTTPServer: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; stop() is idempotent.
    let port: Int
    private let process: ChildProcess

    static func start(serving folder: URL) throws -> StaticHTTPServer { try StaticHTTPServer(folder) }

    private init(_ folder: URL) throws {
        port = try freeTCPPort()
        let log = "\(folder.path).http.log"
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { close(fd) }
        process = try ChildProcess(path: "/usr/bin/python3", arguments: ["-m", "http.server", "--bind", "127.0.0.1", "--directory", folder.path, String(port)],
                                   environment: ProcessInfo.processInfo.environment, stdin: nil, stdout: fd, stderr: fd)
        try waitForServer("the HTTP server", log: log) { acceptsConnections(port) }
    }

    deinit { stop() }

    /// The URL of a file in the folder.
    func url(for path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    func stop() { process.end(signal: SIGTERM) }
}
