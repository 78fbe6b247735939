import CaptureKit
import Foundation

/// libcamera's `cam --capture` on one camera: its CPU over a window of frames in steady state
/// and the age of each frame when cam reports it. cam prints a line per completed request,
/// flushed, that starts with the buffer's timestamp (CLOCK_MONOTONIC, to the microsecond):
/// `10.685517 (48.74 fps) cam0-stream0 seq: 000001 bytesused: 307200`.
struct CamCapturePeer {
    /// cam's `-c`: the camera's index or id.
    let camera: String
    /// cam's `-s`: the stream (`role=video,width=…,height=…,pixelformat=…`).
    let stream: String

    /// What cam spent on the window and how old its frames were when it reported them.
    struct Window {
        var frames: Int
        var wallSeconds: Double
        var cpuSeconds: Double
        var ages: V4L2FrameAges
    }

    /// The `frames` frames after `warmUp`: its CPU from /proc/PID/stat when the window opens and
    /// closes (so start-up — the camera manager, the IPA module, buffer allocation — stays out),
    /// each frame's age as its line's arrival here minus its timestamp.
    func window(warmUp: Int, frames: Int) throws -> Window {
        guard let cam = ChildProcess.locate("cam") else { throw BenchError("cam is not installed (libcamera-tools, scripts/install-deps.sh)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cam)
        // A few frames past the window, so it closes before cam stops the camera.
        process.arguments = ["-c", camera, "--capture=\(warmUp + frames + 3)", "-s", stream]
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = 0
        var ages = V4L2FrameAges()
        var opened: (wall: Int64, cpu: Double)?
        var closed: (wall: Int64, cpu: Double)?
        try ChildProcess.lines(of: process) { line, arrival in
            guard let stamp = Self.timestamp(line) else { return }
            seen += 1
            if seen == warmUp {
                opened = (arrival, V4L2FFmpegPeer.cpuSeconds(of: process.processIdentifier))
            } else if seen > warmUp, closed == nil {
                ages.append(arrival - stamp)
                if seen == warmUp + frames { closed = (arrival, V4L2FFmpegPeer.cpuSeconds(of: process.processIdentifier)) }
            }
        }
        guard let opened, let closed else { throw BenchError("cam -c \(camera): \(seen) of \(warmUp + frames) frames") }
        return Window(frames: frames, wallSeconds: Double(closed.wall - opened.wall) / 1e9, cpuSeconds: closed.cpu - opened.cpu, ages: ages)
    }

    /// The timestamp a frame line starts with, in nanoseconds; nil for cam's other lines.
    static func timestamp(_ line: Substring) -> Int64? {
        guard line.contains(" seq: "), let first = line.split(separator: " ").first else { return nil }
        let parts = first.split(separator: ".")
        guard parts.count == 2, parts[1].count == 6, let seconds = Int64(parts[0]), let micros = Int64(parts[1]) else { return nil }
        return seconds * 1_000_000_000 + micros * 1000
    }
}
