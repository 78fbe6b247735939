import CaptureKit
import Foundation
import Glibc

/// A private RTMP server for `stream-1080p` — nginx with its RTMP module, application `live`
/// with `live on`, listening on a free loopback port — configured and run from the scratch
/// folder as a child of this process, so CaptureKit and ffmpeg publish to the same real server.
///
/// Its own CPU is in no row: it is neither this process nor a child that `wait4` measures for
/// a peer.
final class BenchRTMPServer {
    /// The RTMP module as Debian installs it (libnginx-mod-rtmp).
    static let modulePath = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    /// The Debian packages it needs (for the "not run" note).
    static let packages = "nginx libnginx-mod-rtmp"

    /// The port it listens on, at 127.0.0.1.
    let port: Int
    private let directory: String
    private var pid: pid_t?

    /// The nginx binary when it and the RTMP module are installed, nil otherwise. Debian puts
    /// nginx in /usr/sbin, which is not on every `PATH`.
    static func locate() -> String? {
        guard access(modulePath, R_OK) == 0 else { return nil }
        if let nginx = ChildProcess.locate("nginx") { return nginx }
        return access("/usr/sbin/nginx", X_OK) == 0 ? "/usr/sbin/nginx" : nil
    }

    /// Writes the configuration, starts `nginx -p DIR -c CONF -g 'daemon off;'` and waits until
    /// its port accepts TCP; throws when it cannot start or does not listen within 10 s.
    init(nginx: String, scratchDirectory: String) throws {
        directory = "\(scratchDirectory)/rtmp-server"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        port = try Self.freePort()
        // `user root`: run as root, the workers would otherwise be nobody and could not write
        // here. No http server is configured; its temporary folders are set anyway, so nginx
        // touches nothing outside the scratch folder.
        let configuration = "\(directory)/nginx.conf"
        try """
            load_module \(Self.modulePath);
            user root;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
            }
            rtmp { server { listen 127.0.0.1:\(port); application live { live on; } } }

            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        // -e: the log nginx writes before it has read the configuration goes here too.
        try spawn(nginx, ["-p", directory, "-e", "\(directory)/error.log", "-c", configuration, "-g", "daemon off;"])
        do {
            try waitUntilListening(seconds: 10)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The URL to publish `streamKey` to.
    func url(streamKey: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(streamKey)" }

    /// Stops nginx (SIGTERM: the master stops its worker) and reaps it; SIGKILL after 3 s.
    func stop() {
        guard let pid else { return }
        self.pid = nil
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = MediaTime.now.value + 3_000_000_000
        while waitpid(pid, &status, WNOHANG) == 0 {
            if MediaTime.now.value > deadline { kill(pid, SIGKILL) }
            usleep(5_000)
        }
    }

    /// A port no one listens on: the one the kernel gives a socket bound to port 0, released
    /// for nginx to take.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket failed: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard named else { throw BenchError("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// 127.0.0.1 at `port`.
    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian   // INADDR_LOOPBACK
        return address
    }

    /// Whether a TCP connection to the port is accepted now.
    private func accepts() -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = Self.loopback(port: UInt16(port))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Polls the port until it accepts; throws when nginx exits first or `seconds` pass.
    private func waitUntilListening(seconds: Double) throws {
        let deadline = MediaTime.now.value + Int64(seconds * 1e9)
        while !accepts() {
            var status: Int32 = 0
            if let pid, waitpid(pid, &status, WNOHANG) == pid {
                self.pid = nil
                throw BenchError("nginx exited at start: \(lastLogLine() ?? "no log") (in \(directory))")
            }
            guard MediaTime.now.value < deadline else {
                throw BenchError("nginx did not listen on 127.0.0.1:\(port) within \(Int(seconds)) s (logs in \(directory))")
            }
            usleep(10_000)
        }
    }

    /// The last line nginx logged, to say why it failed.
    private func lastLogLine() -> String? {
        for name in ["error.log", "nginx.log"] {
            if let text = try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8),
               let line = text.split(whereSeparator: \.isNewline).last {
                return String(line)
            }
        }
        return nil
    }

    /// Starts nginx as a child (stdin from /dev/null, stdout and stderr to `nginx.log`).
    private func spawn(_ executable: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let log = "\(directory)/nginx.log"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // The environment is passed explicitly, as ChildProcess does.
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start nginx: \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }
}
