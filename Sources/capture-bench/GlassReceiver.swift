import CaptureKit
import Foundation
import Glibc

/// The viewer of `glass-to-glass`: `ffmpeg -i URL … -f rawvideo -pix_fmt gray -`, decoding the
/// route's stream into a pipe this process reads a frame at a time. A frame's latency is the
/// clock when its last byte has been read minus the moment its publisher captured it (from the
/// ``FrameStamp`` in its luma, through ``GlassPublisher/captureTime(ofStamp:receivedAt:)``).
///
/// The same receiver, with the same options, reads both publishers, so what it adds is the same
/// for both; it is set for low delay, so that its own buffering does not hide theirs:
/// `-fflags nobuffer` (no read-ahead while the stream is probed), `-flags low_delay` (no frame
/// threads in the decoder, each of which would hold a frame back), `-fps_mode passthrough`
/// (every decoded frame once, none duplicated or dropped to a constant rate) and
/// `-flush_packets 1` (each frame written out whole at once).
final class GlassReceiver {
    let arguments: [String]
    private let process = Process()
    private let pipe = Pipe()
    private let logPath: String

    /// The options above around the route's URL.
    static func arguments(url: String) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-i", url, "-an",
         "-fps_mode", "passthrough", "-flush_packets", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    }

    /// Starts the receiver; for SRT, waits until it listens (up to 10 s), so the publisher's call
    /// is answered. An RTMP receiver may start first: nginx holds a player of a stream not yet
    /// published until it is.
    init(ffmpeg: String, route: GlassRoute, scratchDirectory: String) throws {
        arguments = Self.arguments(url: route.receiveURL)
        logPath = "\(scratchDirectory)/glass-receiver-\(route.transport.rawValue).log"
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardOutput = pipe
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        try process.run()
        if let port = route.listeningPort {
            let deadline = MediaTime.now.value + 10_000_000_000
            while !Self.listensOnUDP(port) {
                guard process.isRunning, MediaTime.now.value < deadline else {
                    stop()
                    throw BenchError("the SRT receiver did not listen on UDP port \(port): \(lastLogLine ?? "no log")")
                }
                usleep(10_000)
            }
        }
    }

    deinit { stop() }

    /// Reads `warmUp` frames, then measures `frames`, their latency through `publisher`, and the
    /// publisher's CPU and the wall time over the measured window. Throws when the stream ends
    /// or stalls first (the receiver is stopped after three times the window's duration).
    func measure(warmUp: Int, frames: Int, publisher: any GlassPublisher) throws -> StampedAges {
        let timeout = Double(warmUp + frames) / Double(GlassFrames.fps) * 3 + 20
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }

        let width = GlassFrames.width, height = GlassFrames.height
        var picture = [UInt8](repeating: 0, count: width * height)
        var ages = StampedAges()
        var seen = 0
        var opened: (wall: Int64, cpu: Double)?
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        while ages.frames < frames, NetworkFrameAgePeer.readFully(descriptor, into: &picture) {
            let arrival = MediaTime.now.value
            seen += 1
            if seen == warmUp { opened = (arrival, publisher.cpuSeconds()) }
            guard seen > warmUp else { continue }
            let stamp = picture.withUnsafeBytes { bytes in
                FrameStamp.read(FrameStamp.Luma(bytes: bytes, bytesPerRow: width, width: width, height: height))
            }
            ages.note(stamp: stamp.flatMap { publisher.captureTime(ofStamp: $0, receivedAt: arrival) }, arrival: arrival)
            if ages.frames == frames, let opened {
                ages.cpuSeconds = publisher.cpuSeconds() - opened.cpu
                ages.wallSeconds = Double(arrival - opened.wall) / 1e9
            }
        }
        guard ages.frames == frames else {
            throw BenchError("the receiver decoded \(seen) of \(warmUp + frames) frames of \(publisher.label) "
                             + "(\(process.isRunning ? "stalled" : "exited")): \(lastLogLine ?? "no log")")
        }
        return ages
    }

    /// Stops the receiver and reaps it: the pipe is closed first, so an ffmpeg blocked writing
    /// into it (nothing has read it since the window closed) fails at once instead of waiting;
    /// SIGTERM, then SIGKILL after 3 s.
    func stop() {
        try? pipe.fileHandleForReading.close()
        guard process.isRunning else { return }
        process.terminate()
        let deadline = MediaTime.now.value + 3_000_000_000
        while process.isRunning, MediaTime.now.value < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The command as a shell line, for the notes.
    var commandLine: String {
        "ffmpeg " + arguments.map { $0.contains("?") ? "\"\($0)\"" : $0 }.joined(separator: " ")
    }

    private var lastLogLine: String? {
        (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(whereSeparator: \.isNewline).last.map(String.init)
    }

    /// Whether a UDP socket is bound to `port` on this machine (/proc/net/udp lists the local
    /// address of each as hex `ADDR:PORT`): how a listener that answers no TCP is known to be up.
    private static func listensOnUDP(_ port: Int) -> Bool {
        let suffix = ":" + String(format: "%04X", port)
        return ["/proc/net/udp", "/proc/net/udp6"].contains { path in
            guard let table = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return table.split(whereSeparator: \.isNewline).dropFirst().contains { line in
                line.split(separator: " ").dropFirst().first.map { $0.hasSuffix(suffix) } ?? false
            }
        }
    }
}
