import Foundation
import Glibc
import Testing
@testable import CaptureKit

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
        try RTSPCameraServer(credentials: user.map { ($0, password ?? "") }, clockAhead: clockAhead, file: nil, digest: false)
    }

    /// A server asking for `user` and `password` by Digest authentication only (RFC 2617: the
    /// password never crosses the wire).
    static func start(digestUser user: String, password: String) throws -> RTSPCameraServer {
        try RTSPCameraServer(credentials: (user, password), clockAhead: 0, file: nil, digest: true)
    }

    /// A server playing `file` (an MP4 with H.264 video and AAC sound) in real time to each
    /// client from its start, as RTP streams of their own with RTCP sender reports for each.
    static func start(playing file: URL) throws -> RTSPCameraServer {
        try RTSPCameraServer(credentials: nil, clockAhead: 0, file: file, digest: false)
    }

    private init(credentials: (user: String, password: String)?, clockAhead: Int, file: URL?, digest: Bool) throws {
        self.credentials = credentials
        let directory = try serverDirectory("rtsp-camera")
        port = try freeTCPPort()
        let script = "\(directory)/server.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let log = "\(directory)/server.log"
        let arguments = [script, String(port), file?.path ?? ""] + (credentials.map { [$0.user, $0.password, digest ? "digest" : "basic"] } ?? [])
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
        if sys.argv[2]:
            factory.set_launch('( filesrc location="%s" ! qtdemux name=d '
                               'd.video_0 ! queue ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 '
                               'd.audio_0 ! queue ! aacparse ! rtpmp4gpay name=pay1 pt=97 )' % sys.argv[2])
        else:
            factory.set_launch('( videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1 '
                               '! openh264enc gop-size=15 ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )')
        # A pipeline per client: a shared one that its last client tore down is unprepared in the
        # background, and a client arriving meanwhile got PLAY answered without a CSeq.
        factory.set_shared(False)
        if len(sys.argv) > 4:
            user, password, method = sys.argv[3], sys.argv[4], sys.argv[5]
            auth = GstRtspServer.RTSPAuth()
            token = GstRtspServer.RTSPToken()
            token.set_string('media.factory.role', user)
            if method == 'digest':
                gi.require_version('GstRtsp', '1.0')
                from gi.repository import GstRtsp
                auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
                auth.add_digest(user, password, token)
            else:
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
    /// Whether the stream is ``FlashAndBeep``'s picture and sound instead of a silent test
    /// pattern.
    let flashesAndBeeps: Bool

    static func start(reorderingFrames: Bool = false, flashingAndBeeping: Bool = false) throws -> RTMPCameraFeed {
        try RTMPCameraFeed(reorderingFrames: reorderingFrames, flashingAndBeeping: flashingAndBeeping)
    }

    private init(reorderingFrames: Bool, flashingAndBeeping: Bool) throws {
        reordersFrames = reorderingFrames
        flashesAndBeeps = flashingAndBeeping
        server = try NginxRTMPServer.start()
        directory = try serverDirectory("rtmp-feed")
        try publish()
    }

    deinit { stop() }

    /// Starts the publisher and waits until nginx plays the stream (its HLS playlist exists).
    func publish() throws {
        let coding = reordersFrames ? ["-preset", "veryfast", "-bf", "2"] : ["-preset", "ultrafast", "-tune", "zerolatency"]
        let source = flashesAndBeeps ? FlashAndBeep.ffmpegInputs + ["-c:a", "aac", "-b:a", "64k"]
            : ["-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15"]
        publisher = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error"] + source + ["-c:v", "libx264"] + coding + ["-g", "15",
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

/// FFmpeg sending a live 320x240 15 fps H.264 test pattern in MPEG-TS to a UDP port of this
/// machine, as plain datagrams (``url`` is `udp://`) or in RTP (`rtp://`, payload type 33):
/// what a hardware encoder pointed at a recorder does. Nothing listens until the camera does.
final class UDPCameraFeed: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; the process's own lock guards stopping.
    let url: String
    private let sender: ChildProcess

    static func start(rtp: Bool) throws -> UDPCameraFeed { try UDPCameraFeed(rtp: rtp) }

    private init(rtp: Bool) throws {
        let directory = try serverDirectory("udp-camera")
        let port = try freeUDPPort()
        url = rtp ? "rtp://127.0.0.1:\(port)" : "udp://127.0.0.1:\(port)"
        let target = rtp ? ["-f", "rtp_mpegts", "rtp://127.0.0.1:\(port)"] : ["-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316"]
        sender = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-re"] + SRTCameraFeed.testPattern + target,
                                        environment: ProcessInfo.processInfo.environment, log: "\(directory)/ffmpeg.log")
    }

    deinit { stop() }

    func stop() { sender.end(signal: SIGKILL) }
}

/// srt-live-transmit calling the camera (an SRT listener at ``url``, `mode=listener`) with a
/// live test pattern FFmpeg sends it over UDP, calling again whenever the connection ends
/// (`-a:yes`): an encoder pushing to a recorder.
final class SRTCallerFeed: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; the processes' own locks guard stopping.
    let url: String
    private let caller: ChildProcess
    private let sender: ChildProcess

    static func start() throws -> SRTCallerFeed { try SRTCallerFeed() }

    private init() throws {
        let directory = try serverDirectory("srt-caller")
        let port = try freeUDPPort()
        let udp = try freeUDPPort()
        url = "srt://127.0.0.1:\(port)?mode=listener"
        let environment = ProcessInfo.processInfo.environment
        caller = try AudioDaemons.spawn("srt-live-transmit", ["-q", "-a:yes", "udp://:\(udp)", "srt://127.0.0.1:\(port)?mode=caller"],
                                        environment: environment, log: "\(directory)/caller.log")
        try waitForServer("srt-live-transmit", log: "\(directory)/caller.log") { udpPortIsBound(udp) }
        sender = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-re"] + SRTCameraFeed.testPattern
                                            + ["-f", "mpegts", "udp://127.0.0.1:\(udp)?pkt_size=1316"],
                                        environment: environment, log: "\(directory)/ffmpeg.log")
    }

    deinit { stop() }

    func stop() {
        sender.end(signal: SIGKILL)
        caller.end(signal: SIGKILL)
    }
}

/// A live picture that flashes white for one frame at the start of every second over a 100 ms
/// beep (1 kHz, 48 kHz mono) starting with it, the rest black and silent: what shows whether
/// a camera's picture and sound arrive aligned (each flash's time against its beep's onset).
enum FlashAndBeep {
    /// The frame rate of the picture: 15 fps, one frame is 66.7 ms.
    static let frameRate = 15
    static let sampleRate = 48_000

    /// FFmpeg's inputs (`-re`: in real time) making the picture and the sound.
    static let ffmpegInputs = [
        "-re", "-f", "lavfi", "-i", "color=c=black:s=320x240:r=\(frameRate),geq=lum='if(eq(mod(N\\,\(frameRate))\\,0)\\,235\\,16)':cb=128:cr=128",
        "-re", "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t\\,1)\\,0.1)\\,0.5*sin(2*PI*1000*t)\\,0)':s=\(sampleRate):c=mono",
    ]

    /// 30 s of it in an MP4 (H.264, AAC), made once per test process.
    static func movie() throws -> URL {
        try FileFixtures.file("flash-and-beep.mp4") { path in
            try FileFixtures.ffmpeg(ffmpegInputs.filter { $0 != "-re" } + ["-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
                                                                          "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k"], to: path)
        }
    }

    /// The times (seconds) of the flashes and the beeps' onsets in a movie, as FFmpeg's
    /// `signalstats` (mean luma) and `silencedetect` filters find them.
    static func flashesAndBeeps(in movie: URL) throws -> (flashes: [Int64], beeps: [Int64]) {
        let stats = try FileFixtures.run("ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(movie.path),signalstats",
                                                     "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0"])
        var flashes: [Int64] = []
        var wasBright = true
        for line in String(decoding: stats, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count == 2, let time = Double(fields[0]), let luma = Double(fields[1]) else { continue }
            if luma > 128, !wasBright { flashes.append(Int64(time * 1e9)) }
            wasBright = luma > 128
        }
        let silence = try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "info", "-i", movie.path, "-vn", "-af", "silencedetect=n=-30dB:d=0.3",
                                                      "-f", "null", "-"], includingErrors: true)
        let beeps = String(decoding: silence, as: UTF8.self).split(separator: "\n").compactMap { line -> Int64? in
            guard let range = line.range(of: "silence_end: ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0 != " " }).map { Int64($0 * 1e9) }
        }
        return (flashes, beeps)
    }

    /// The times (nanoseconds) of the frames that start a flash: bright after a dark one.
    static func flashes(_ frames: [SampleBuffer]) -> [Int64] {
        var flashes: [Int64] = []
        var wasBright = true
        for frame in frames {
            guard let picture = frame.pixelBuffer, let time = frame.presentationTimeStamp.nanoseconds else { continue }
            let bright = picture.withUnsafeBytes(ofPlane: 0) { bytes in
                // The middle row's mean luma: 235 when flashing, 16 otherwise.
                let row = bytes.dropFirst(picture.bytesPerRow(ofPlane: 0) * picture.height / 2).prefix(picture.width)
                return row.reduce(0) { $0 + Int($1) } / max(1, row.count) > 128
            }
            if bright, !wasBright { flashes.append(time) }
            wasBright = bright
        }
        return flashes
    }

    /// The times (nanoseconds) of the samples that start a beep: loud after 0.5 s of silence.
    static func beeps(_ buffers: [SampleBuffer]) -> [Int64] {
        var beeps: [Int64] = []
        var quietSince: Int64? = nil
        for buffer in buffers {
            guard let audio = buffer.audioBuffer, let start = buffer.presentationTimeStamp.nanoseconds else { continue }
            let channels = audio.format.channelCount, rate = Int64(audio.format.sampleRate)
            for (index, value) in audio.floatSamples().enumerated() where index % channels == 0 {
                let time = start + Int64(index / channels) * 1_000_000_000 / rate
                if abs(value) > 0.05 {
                    if let quiet = quietSince, time - quiet >= 500_000_000 { beeps.append(time) }
                    quietSince = nil
                } else if quietSince == nil {
                    quietSince = time
                }
            }
        }
        return beeps
    }

    /// Each flash against the nearest beep: how far apart they are (nanoseconds, picture
    /// minus sound).
    static func offsets(flashes: [Int64], beeps: [Int64]) -> [Int64] {
        flashes.compactMap { flash in beeps.min { abs($0 - flash) < abs($1 - flash) }.map { flash - $0 } }
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
        let source = file.map { ["-stream_loop", "-1", "-i", $0.path, "-c", "copy"] } ?? Self.testPattern
        sender = try AudioDaemons.spawn("ffmpeg", ["-nostdin", "-v", "error", "-re"] + source + ["-f", "mpegts", "udp://127.0.0.1:\(udp)?pkt_size=1316"],
                                        environment: environment, log: "\(directory)/ffmpeg.log")
    }

    deinit { stop() }

    func stop() {
        sender.end(signal: SIGKILL)
        relay.end(signal: SIGKILL)
    }

    /// FFmpeg's input and coding of the live test pattern: 320x240 at 15 fps, H.264 with a
    /// keyframe every second.
    static let testPattern = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-c:v", "libx264", "-preset", "ultrafast",
                              "-tune", "zerolatency", "-g", "15", "-pix_fmt", "yuv420p"]
}
