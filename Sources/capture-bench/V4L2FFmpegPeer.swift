import CaptureKit
import CommandLineSupport
import Foundation
import Glibc

/// ffmpeg reading the same V4L2 node (`ffmpeg -f v4l2 … -f null -`): its CPU per frame, and the
/// age of each frame when ffmpeg hands it on.
struct V4L2FFmpegPeer {
    let node: String
    let fourCC: String
    let width: Int
    let height: Int
    let fps: Int

    /// ffmpeg's v4l2 input, asking for the format the CaptureKit case uses.
    private func inputArguments(frames: Int) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-f", "v4l2", "-input_format", fourCC == "YUYV" ? "yuyv422" : fourCC.lowercased(),
         "-video_size", "\(width)x\(height)", "-framerate", String(fps), "-i", node, "-frames:v", String(frames)]
    }

    /// What ffmpeg spent on a window of frames in steady state.
    struct CPUWindow {
        var frames: Int
        var wallSeconds: Double
        var cpuSeconds: Double
    }

    /// CPU of `… -f null -` over `frames` frames after `warmUp`: ffmpeg reports its frame count
    /// on a progress pipe (`-progress pipe:1`, every 40 ms) and its CPU is read from
    /// /proc/PID/stat when the window opens and closes, so its start-up (far longer under
    /// emulation than a frame) stays out.
    func cpuWindow(warmUp: Int, frames: Int) throws -> CPUWindow {
        let process = try start(inputArguments(frames: warmUp + frames + 5)
            + ["-progress", "pipe:1", "-stats_period", "0.04", "-f", "null", "-"])
        var opened: (frame: Int, wall: Int64, cpu: Double)?
        var closed: (frame: Int, wall: Int64, cpu: Double)?
        try ChildProcess.lines(of: process) { line, arrival in
            guard line.hasPrefix("frame="), let frame = Int(line.dropFirst(6)) else { return }
            if opened == nil, frame >= warmUp {
                opened = (frame, arrival, Self.cpuSeconds(of: process.processIdentifier))
            } else if let start = opened, closed == nil, frame >= start.frame + frames {
                closed = (frame, arrival, Self.cpuSeconds(of: process.processIdentifier))
            }
        }
        guard let opened, let closed else { throw BenchError("ffmpeg -f null: its progress never reached \(warmUp + frames) frames") }
        return CPUWindow(frames: closed.frame - opened.frame, wallSeconds: Double(closed.wall - opened.wall) / 1e9,
                         cpuSeconds: closed.cpu - opened.cpu)
    }

    /// User + system CPU of a running process from /proc/PID/stat (fields 14 and 15, in clock
    /// ticks); 0 when it cannot be read.
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (which may hold spaces) start with field 3, the state.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func start(_ arguments: [String]) throws -> Process {
        guard let ffmpeg = ChildProcess.locate("ffmpeg") else { throw BenchError("ffmpeg is not installed (apt-get install ffmpeg)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Frame ages with ffmpeg as the consumer: `-f framecrc` written to a pipe, one line per
    /// frame, flushed per packet; a line's arrival here minus the frame's timestamp. ffmpeg keeps
    /// the driver's monotonic timestamps (`-copyts`), or converts them to wall-clock time: both
    /// are handled by comparing with the clock they are near.
    func frameAges(frames: Int) throws -> (ages: V4L2FrameAges, clock: String) {
        let process = try start(inputArguments(frames: frames) + ["-copyts", "-flush_packets", "1", "-f", "framecrc", "-"])
        var ages = V4L2FrameAges()
        var clock = "unknown"
        var timeBase = (numerator: Int64(1), denominator: Int64(1_000_000))
        try ChildProcess.lines(of: process) { raw, monotonic in
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#tb 0:") {
                let parts = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/").compactMap { Int64($0) }
                if parts.count == 2 { timeBase = (parts[0], parts[1]) }
                return
            }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !line.hasPrefix("#"), fields.count >= 3, let pts = Int64(fields[1]) else { return }
            var realtime = timespec()
            clock_gettime(CLOCK_REALTIME, &realtime)
            let wall = Int64(realtime.tv_sec) * 1_000_000_000 + Int64(realtime.tv_nsec)
            let stamp = pts * 1_000_000_000 / timeBase.denominator * timeBase.numerator
            // Within a minute of one clock: that is the clock the stamp is on.
            if abs(monotonic - stamp) < 60_000_000_000 {
                ages.append(monotonic - stamp); clock = "monotonic"
            } else if abs(wall - stamp) < 60_000_000_000 {
                ages.append(wall - stamp); clock = "wall-clock"
            }
        }
        return (ages, clock)
    }
}
