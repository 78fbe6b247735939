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
    private var nginx: BackgroundChild?

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
        port = try LoopbackPort.free()
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
        self.nginx = try BackgroundChild(nginx, ["-p", directory, "-e", "\(directory)/error.log", "-c", configuration, "-g", "daemon off;"],
                                         logPath: "\(directory)/nginx.log")
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
        nginx?.stop()
        nginx = nil
    }

    /// Polls the port until it accepts; throws when nginx exits first or `seconds` pass.
    private func waitUntilListening(seconds: Double) throws {
        let deadline = MediaTime.now.value + Int64(seconds * 1e9)
        while !LoopbackPort.accepts(port) {
            if nginx?.hasExited ?? true {
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
}
