import CaptureKit
import Foundation
import Glibc

/// A private RTSP camera for `network-record-720p` — GStreamer's RTSP server (gst-rtsp-server,
/// through Python's GObject bindings) serving a live 1280x720 30 fps H.264 test pattern at
/// `/cam` on a free loopback port — run as a child of this process, so CaptureKit and ffmpeg
/// record the same real camera. `network-frame-age` runs another server script and pipeline
/// through it (``StampedRTSPCamera``): the start, the anchor and the stop are the same.
///
/// The media is shared: one pipeline, one encode, feeds every client, so a row with 16 cameras
/// costs the server no more encoding than a row with one. A shared media whose last client
/// leaves is torn down in the background, and a client that arrives meanwhile can get a broken
/// PLAY answer; an anchor client (`ffmpeg … -c copy -f null -`), connected from the start to
/// the end, keeps the media up between rows. The media is made unseekable, so that a client
/// joining does not seek the pipeline under the others (see the script).
///
/// The server's and the anchor's CPU are in no row: they are neither this process nor a child
/// that `wait4` measures for a peer.
final class BenchRTSPServer {
    /// The Debian packages it needs (for the "not run" note): the Python bindings, the RTSP
    /// server's typelib and the plugins with openh264enc and h264parse.
    static let packages = "python3-gst-1.0 gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-bad"
    /// Debian's Python, which has the GStreamer bindings (another Python may come first on `PATH`).
    static let python = "/usr/bin/python3"
    /// What the server encodes: openh264enc is the H.264 encoder GStreamer has here (no
    /// x264enc); a keyframe every 60 frames (2 s); SPS and PPS with every keyframe
    /// (`config-interval=1`), as cameras send them.
    static let pipeline = "( videotestsrc is-live=true pattern=ball ! video/x-raw,width=1280,height=720,framerate=30/1 "
        + "! openh264enc gop-size=60 ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )"

    /// The server, run as `python3 -c SCRIPT PORT PIPELINE`.
    static let script = serverSetup + "\nGLib.MainLoop().run()\n"

    /// The server made and listening (`server`, its `factory`), before its main loop runs: the
    /// part of ``script`` that another script serving a pipeline of its own starts with
    /// (``StampedRTSPCamera/script``).
    static let serverSetup = """
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
        factory.set_launch(sys.argv[2])
        factory.set_shared(True)
        # Not seekable: a client's PLAY with a Range (ffmpeg and CaptureKit send npt=0.000-)
        # would otherwise flush-seek the shared pipeline under every other client, and that seek
        # can deadlock the server (gst-rtsp-server 1.22: the PLAY blocks the streams while the
        # streaming thread waits for a lock it holds). This clock mode makes the media
        # unseekable; clients ignore the RFC 7273 clock lines it adds to the SDP.
        factory.set_publish_clock_mode(GstRtspServer.RTSPPublishClockMode.CLOCK_AND_OFFSET)
        server.get_mount_points().add_factory('/cam', factory)
        server.attach(None)
        """

    /// Exits 0 when the bindings, the RTSP server and every element named after it on the
    /// command line are there.
    private static let check = """
        import sys
        import gi
        gi.require_version('Gst', '1.0')
        gi.require_version('GstRtspServer', '1.0')
        from gi.repository import Gst, GstRtspServer
        Gst.init(None)
        missing = [name for name in sys.argv[1:] if Gst.ElementFactory.find(name) is None]
        sys.exit(1 if missing else 0)
        """

    /// The port it listens on, at 127.0.0.1.
    let port: Int
    private let directory: String
    private let server: BackgroundChild
    private var anchor: BackgroundChild?

    /// The elements ``pipeline`` is made of.
    static let elements = ["videotestsrc", "openh264enc", "h264parse", "rtph264pay"]

    /// Whether ``python`` can run the server: its GStreamer bindings, gst-rtsp-server and
    /// `elements` (the pipeline's) are installed.
    static func isAvailable(scratchDirectory: String, elements: [String] = BenchRTSPServer.elements) -> Bool {
        guard access(python, X_OK) == 0 else { return false }
        return (try? ChildProcess.run(python, ["-c", check] + elements, scratchDirectory: scratchDirectory)) != nil
    }

    /// The camera's URL.
    var url: String { "rtsp://127.0.0.1:\(port)/cam" }

    /// Starts the server — `script` serving `pipeline` (by default ``script`` and ``pipeline``:
    /// the test pattern) — and waits until its port accepts TCP, then starts the anchor client
    /// and waits until it receives frames; throws when either does not within 20 s.
    init(ffmpeg: String, scratchDirectory: String, script: String = BenchRTSPServer.script, pipeline: String = BenchRTSPServer.pipeline) throws {
        directory = "\(scratchDirectory)/rtsp-server"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        port = try LoopbackPort.free()
        server = try BackgroundChild(Self.python, ["-c", script, String(port), pipeline], logPath: "\(directory)/server.log")
        do {
            try waitUntilListening(seconds: 20)
            try startAnchor(ffmpeg: ffmpeg, seconds: 20)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Throws when the server or the anchor has exited: a row measured then would measure a
    /// server that is not there (or a media torn down between rows).
    func checkRunning() throws {
        if server.hasExited {
            throw BenchError("the RTSP server exited: \(server.lastLogLine ?? "no log") (in \(directory))")
        }
        if let anchor, anchor.hasExited {
            throw BenchError("the RTSP anchor client exited: \(anchor.lastLogLine ?? "no log") (in \(directory))")
        }
    }

    /// Stops the anchor, then the server (SIGTERM, SIGKILL after 3 s), and reaps both.
    func stop() {
        anchor?.stop()
        anchor = nil
        server.stop()
    }

    /// Polls the port until it accepts; throws when the server exits first or `seconds` pass.
    private func waitUntilListening(seconds: Double) throws {
        let deadline = MediaTime.now.value + Int64(seconds * 1e9)
        while !LoopbackPort.accepts(port) {
            if server.hasExited {
                throw BenchError("the RTSP server exited at start: \(server.lastLogLine ?? "no log") (in \(directory))")
            }
            guard MediaTime.now.value < deadline else {
                throw BenchError("the RTSP server did not listen on 127.0.0.1:\(port) within \(Int(seconds)) s (log in \(directory))")
            }
            usleep(10_000)
        }
    }

    /// Starts `ffmpeg -nostdin -v error -rtsp_transport tcp -i URL -c copy -f null -` with its
    /// `-progress` in a file, and waits until that reports a frame: the shared media is then
    /// prepared and playing, and stays so until ``stop()``.
    private func startAnchor(ffmpeg: String, seconds: Double) throws {
        let progress = "\(directory)/anchor-progress.txt"
        let anchor = try BackgroundChild(ffmpeg, ["-nostdin", "-v", "error", "-progress", progress, "-rtsp_transport", "tcp",
                                                  "-i", url, "-c", "copy", "-f", "null", "-"],
                                         logPath: "\(directory)/anchor.log")
        self.anchor = anchor
        let deadline = MediaTime.now.value + Int64(seconds * 1e9)
        while !Self.reportsFrames(progress) {
            if anchor.hasExited {
                throw BenchError("the RTSP anchor client exited at start: \(anchor.lastLogLine ?? "no log") (in \(directory))")
            }
            guard MediaTime.now.value < deadline else {
                throw BenchError("the RTSP anchor client received no frame from \(url) within \(Int(seconds)) s (logs in \(directory))")
            }
            usleep(20_000)
        }
    }

    /// Whether an ffmpeg `-progress` file has a `frame=N` line with N > 0.
    private static func reportsFrames(_ path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        return text.split(whereSeparator: \.isNewline).contains { line in
            line.hasPrefix("frame=") && (Int(line.dropFirst("frame=".count)) ?? 0) > 0
        }
    }
}
