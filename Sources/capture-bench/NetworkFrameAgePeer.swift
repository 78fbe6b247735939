import CaptureKit
import Foundation
import Glibc

/// The peer of `network-frame-age`: reading the camera the way OpenCV's `VideoCapture` does —
/// libavformat's RTSP demuxer and libavcodec's decoder at their defaults, each frame handed to
/// the application as raw pixels — with ffmpeg doing that part, `ffmpeg -rtsp_transport tcp -i
/// URL -f rawvideo -pix_fmt gray -` into a pipe this process reads a frame at a time. A frame's
/// age is taken when its last byte has been read: when an OpenCV `read()` would return it.
struct NetworkFrameAgePeer {
    let ffmpeg: String
    let url: String
    let warmUp: Int
    let frames: Int
    let scratchDirectory: String

    /// ffmpeg's arguments. `-fps_mode passthrough` hands on every decoded frame once, as OpenCV
    /// does (rawvideo's default would duplicate or drop frames to a constant rate);
    /// `-flush_packets 1` writes each frame out whole at once (otherwise its tail waits in
    /// ffmpeg's 32 KiB output buffer for the next one), as OpenCV's frame is in memory at once.
    var arguments: [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-rtsp_transport", "tcp", "-i", url, "-an",
         "-frames:v", String(warmUp + frames), "-fps_mode", "passthrough", "-flush_packets", "1",
         "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    }

    /// The command as a shell line, for the notes.
    var commandLine: String { "ffmpeg " + arguments.joined(separator: " ") }

    /// One run: the window's ages, wall time and ffmpeg's CPU over it (from /proc/PID/stat when
    /// the window opens and closes, so its start-up and probe stay out, as CaptureKit's do).
    func run() throws -> StampedAges {
        let logPath = "\(scratchDirectory)/frame-age-ffmpeg.log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        try process.run()

        // A server gone would leave the read blocked: ffmpeg is stopped after the same time
        // CaptureKit's case is given, which ends the pipe.
        let timeout = Double(warmUp + frames) / Double(StampedRTSPCamera.fps) * 3 + 20
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }

        let size = StampedRTSPCamera.width * StampedRTSPCamera.height
        var picture = [UInt8](repeating: 0, count: size)
        var ages = StampedAges()
        var seen = 0
        var opened: (wall: Int64, cpu: Double)?
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        while Self.readFully(descriptor, into: &picture) {
            let arrival = MediaTime.now.value
            seen += 1
            if seen == warmUp { opened = (arrival, V4L2FFmpegPeer.cpuSeconds(of: process.processIdentifier)) }
            guard seen > warmUp, ages.frames < frames else { continue }
            let stamp = picture.withUnsafeBytes { bytes in
                FrameStamp.read(FrameStamp.Luma(bytes: bytes, bytesPerRow: StampedRTSPCamera.width,
                                                width: StampedRTSPCamera.width, height: StampedRTSPCamera.height))
            }
            ages.note(stamp: stamp, arrival: arrival)
            if ages.frames == frames, let opened {
                // Read before ffmpeg exits: /proc/PID/stat is gone after it is reaped.
                ages.cpuSeconds = V4L2FFmpegPeer.cpuSeconds(of: process.processIdentifier) - opened.cpu
                ages.wallSeconds = Double(arrival - opened.wall) / 1e9
            }
        }
        process.waitUntilExit()
        guard ages.frames == frames else {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(whereSeparator: \.isNewline).last.map(String.init)
            throw BenchError("ffmpeg: \(seen) of \(warmUp + frames) frames from \(url) (status \(process.terminationStatus)): \(log ?? "no log")")
        }
        return ages
    }

    /// Reads exactly `buffer.count` bytes; false at the end of the pipe before that. Also how
    /// `glass-to-glass`'s receiver (``GlassReceiver``) reads its frames.
    static func readFully(_ descriptor: Int32, into buffer: inout [UInt8]) -> Bool {
        buffer.withUnsafeMutableBytes { bytes in
            var filled = 0
            while filled < bytes.count {
                let count = read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                if count > 0 {
                    filled += count
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}
