import Foundation
import Glibc
import Testing

// Servers a network camera test reads from, each a child of the test process on 127.0.0.1:
// GStreamer's RTSP server (optionally asking for a password) and FFmpeg publishing a live test
// pattern into nginx-rtmp, which plays it over RTMP and HLS. Readiness is a listening port or
// a playlist, never a sleep.

/// GStreamer's RTSP server (python3-gst-1.0 + gir1.2-gst-rtsp-server-1.0) serving a live
/// 320x240 15 fps H.264 test pattern at `/cam`, a pipeline of its own per client, with Basic
/// authentication when given a user.
final class RTSPCameraServer: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; the process's own lock guards stopping.
    let port: Int
    let process: ChildProcess
    let credentials: (user: String, password: String)?

    /// The camera's URL, with the server's user and `password` (by default the right one) when it asks for one.
    func url(password: String? = nil) -> String {
        guard let credentials else { return "rtsp://127.0.0.1:\(port)/cam" }
        return "rtsp://\(credentials.user):\(password ?? credentials.password)@127.0.0.1:\(port)/cam"
    }

    /// A server asking for `user` and `password` when given a user, whose wall clock (what its
    /// RTCP sender reports say in NTP time) is `clockAhead` seconds ahead of this machine's:
    /// libfaketime (the `faketime` package) moves the clock it reads, not its monotonic one.
    static func start(user: String? = nil, password: String? = nil, clockAhead: Int = 0) throws -> RTSPCameraServer {
        try RTSPCameraServer(credentials: user.map { ($0, password ?? "") }, clockAhead: clockAhead)
    }

    private init(credentials: (user: String, password: String)?, clockAhead: Int) throws {
        self.credentials = credentials
        let directory = try serverDirectory("rtsp-camera")
        port = try freeTCPPort()
        let script = "\(directory)/server.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let log = "\(directory)/server.log"
        let arguments = [script, String(port)] + (credentials.map { [$0.user, $0.password] } ?? [])
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { close(fd) }
        var environment = ProcessInfo.processInfo.environment
        if clockAhead != 0 {
            environment["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
            environment["FAKETIME"] = clockAhead > 0 ? "+\(clockAhead)s" : "\(clockAhead)s"
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        process = try ChildProcess(path: "/usr/bin/python3", arguments: arguments, environment: environment,
                                   stdin: nil, stdout: fd, stderr: fd)
        try waitForServer("GStreamer's RTSP server", log: log) { tcpPortIsListening(port) }
    }

    deinit { stop() }

    func stop() { process.end(signal: SIGKILL) }

    private static let script = """
        import sys
        import gi
        gi.require_version('Gst', '1.0')
        gi.require_version('GstRtspServer', '1.0')
        from gi.repository import Gst, GstRtspServer, GLib
        Gst.init(None)
        server = GstRtspServer.RTSPServer()
        server.set_address('127.0.0.1')
        server.set_service(sys.argv[1])
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_launch('( videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1 '
                           '! openh264enc gop-size=15 ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )')
        # A pipeline per client: a shared one that its last client tore down is unprepared in the
        # background, and a client arriving meanwhile got PLAY answered without a CSeq.
        factory.set_shared(False)
        if len(sys.argv) > 3:
            user, password = sys.argv[2], sys.argv[3]
            auth = GstRtspServer.RTSPAuth()
            token = GstRtspServer.RTSPToken()
            token.set_string('media.factory.role', user)
            auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
            server.set_auth(auth)
            permissions = GstRtspServer.RTSPPermissions()
            permissions.add_permission_for_role(user, 'media.factory.access', True)
            permissions.add_permission_for_role(user, 'media.factory.construct', True)
            factory.set_permissions(permissions)
        server.get_mount_points().add_factory('/cam', factory)
        server.attach(None)
        GLib.MainLoop().run()
        """
}

/// FFmpeg publishing a live 320x240 15 fps H.264 test pattern (a keyframe every second) to
/// nginx-rtmp, which plays it at ``rtmpURL`` and writes HLS at ``hlsURL``.
final class RTMPCameraFeed: @unchecked Sendable {
    // Unchecked Sendable: the publisher is replaced only by the test's own thread.
    let server: NginxRTMPServer
    let stream = "cam"
    private(set) var publisher: ChildProcess?
    private let directory: String

    var rtmpURL: String { server.publishURL(stream: stream) }
    var hlsURL: String { server.hlsURL(stream: stream) }

    /// Whether the publisher codes B-frames (presentation order differs from decode order).
    let reordersFrames: Bool

    static func start(reorderingFrames: Bool = false) throws -> RTMPCameraFeed { try RTMPCameraFeed(reorderingFrames: reorderingFrames) }

    private init(reorderingFrames: Bool) throws {
        reordersFrames = reorderingFrames
        server = try NginxRTMPServer.start()
        directory = try serverDirectory("rtmp-feed")
        try publish()
    }

    deinit { stop() }

    /// Starts the publisher and waits until nginx plays the stream (its HLS playlist exists).
    func publish() throws {
        let coding = reordersFrames ? ["-preset", "veryfast", "-bf", "2"] : ["-preset", "ultrafast", "-tune", "zerolatency"]
        publisher = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15",
                                                      "-c:v", "libx264"] + coding + ["-g", "15",
                                                      "-pix_fmt", "yuv420p", "-f", "flv", rtmpURL],
                                           environment: ProcessInfo.processInfo.environment, log: "\(directory)/ffmpeg.log")
        let playlist = "\(server.plan.directory)/hls/\(stream).m3u8"
        try waitForServer("the RTMP publisher", log: "\(directory)/ffmpeg.log", timeout: .seconds(30)) {
            FileManager.default.fileExists(atPath: playlist)
        }
    }

    /// Kills the publisher at once (a camera's encoder crashing).
    func killPublisher() {
        publisher?.end(signal: SIGKILL)
        publisher = nil
    }

    func stop() {
        killPublisher()
        server.stop()
    }
}

/// A live 320x240 15 fps H.264 test pattern in MPEG-TS over SRT: FFmpeg sends it over UDP to
/// srt-live-transmit, which listens for SRT callers at ``url`` (one after another).
final class SRTCameraFeed: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; the processes' own locks guard stopping.
    let port: Int
    private let relay: ChildProcess
    private let sender: ChildProcess

    var url: String { "srt://127.0.0.1:\(port)?mode=caller" }

    /// A live libx264 test pattern, or `file` (an MPEG-TS) sent as it is, looped at its own pace.
    static func start(sending file: URL? = nil) throws -> SRTCameraFeed { try SRTCameraFeed(sending: file) }

    private init(sending file: URL?) throws {
        let directory = try serverDirectory("srt-camera")
        port = try freeUDPPort()
        let udp = try freeUDPPort()
        let environment = ProcessInfo.processInfo.environment
        relay = try AudioDaemons.spawn("srt-live-transmit", ["-q", "udp://:\(udp)", "srt://:\(port)?mode=listener"],
                                       environment: environment, log: "\(directory)/relay.log")
        let port = port
        try waitForServer("srt-live-transmit", log: "\(directory)/relay.log") { udpPortIsBound(port) }
        let source = file.map { ["-stream_loop", "-1", "-i", $0.path, "-c", "copy"] }
            ?? ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
                "-g", "15", "-pix_fmt", "yuv420p"]
        sender = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-re"] + source + ["-f", "mpegts", "udp://127.0.0.1:\(udp)?pkt_size=1316"],
                                        environment: environment, log: "\(directory)/ffmpeg.log")
    }

    deinit { stop() }

    func stop() {
        sender.end(signal: SIGKILL)
        relay.end(signal: SIGKILL)
    }
}
