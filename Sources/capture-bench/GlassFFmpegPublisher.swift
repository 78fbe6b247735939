import CaptureKit
import Foundation
import Glibc
import Synchronization

/// ffmpeg's side of `glass-to-glass`: the same pictures (``GlassFrames``) written raw into its
/// stdin in real time by a thread of this process, 30 a second on absolute deadlines, each
/// stamped with the CLOCK_MONOTONIC nanoseconds at which it is written — the moment it is
/// "captured" for ffmpeg, as a virtual camera's frame is at its deadline — encoded with
/// libx264 at ``CaptureStreamOutput``'s defaults and published to the same route.
final class GlassFFmpegPublisher: GlassPublisher {
    let label: String
    let tool = "ffmpeg"
    let arguments: [String]
    private let process = Process()
    private let feeder: Feeder
    private let logPath: String

    /// `-f rawvideo -pix_fmt yuv420p -video_size 640x480 -framerate 30 -i pipe:0 -c:v libx264
    /// -preset veryfast -tune zerolatency -b:v 2500k -maxrate 2500k -bufsize 2500k -g 60`: the
    /// stream output's encode (2.5 Mbit/s with a one-second buffer, a keyframe every 2 s), then
    /// `-flush_packets 1 -f flv|mpegts URL` — every packet handed to the network at once, as a
    /// low-latency ffmpeg publisher is set up (its output buffer would otherwise hold a frame's tail).
    static func arguments(route: GlassRoute) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error",
         "-f", "rawvideo", "-pix_fmt", "yuv420p", "-video_size", "\(GlassFrames.width)x\(GlassFrames.height)",
         "-framerate", String(GlassFrames.fps), "-i", "pipe:0",
         "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
         "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", String(GlassFrames.fps * 2),
         "-flush_packets", "1", "-f", route.muxer, route.publishURL]
    }

    /// Starts ffmpeg and the thread that feeds it.
    init(ffmpeg: String, route: GlassRoute, scratchDirectory: String) throws {
        label = "ffmpeg libx264 -f \(route.muxer), \(route.transport.rawValue)"
        arguments = Self.arguments(route: route)
        logPath = "\(scratchDirectory)/glass-publisher-\(route.transport.rawValue).log"
        // A publisher that dies would otherwise kill this process with SIGPIPE on the next write;
        // the write fails instead and the feeder stops.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        try process.run()
        feeder = Feeder(descriptor: input.fileHandleForWriting.fileDescriptor, pattern: try TestPattern(
            width: GlassFrames.width, height: GlassFrames.height, pixelFormat: .yuv420p))
        let feeder = self.feeder
        let handle = input.fileHandleForWriting
        // Closed when the feeder is done: that is ffmpeg's end of input.
        let writer = Thread { feeder.run(); try? handle.close() }
        writer.name = "capture-bench.glass.feeder"
        writer.start()
    }

    /// The stamp is the writing time itself.
    func captureTime(ofStamp stamp: Int64, receivedAt arrival: Int64) -> Int64? { stamp }

    func cpuSeconds() -> Double { V4L2FFmpegPeer.cpuSeconds(of: process.processIdentifier) }

    /// Ends the input (ffmpeg then drains its encoder and exits) and waits up to 10 s, then
    /// stops it; throws when it had already died, with the line it logged.
    func stop() throws -> [String] {
        let diedEarly = !process.isRunning
        feeder.stop()
        let deadline = MediaTime.now.value + 10_000_000_000
        while process.isRunning, MediaTime.now.value < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        if diedEarly || feeder.failure != nil {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(whereSeparator: \.isNewline).last.map(String.init)
            throw BenchError("\(label): ffmpeg stopped publishing (status \(process.terminationStatus)): \(log ?? feeder.failure ?? "no log")")
        }
        return []
    }

    /// The thread's work: one frame per deadline into ffmpeg's stdin until stopped. The picture
    /// is made before the deadline, so that only painting the stamp (microseconds) lies between
    /// reading the clock and writing the frame.
    private final class Feeder: Sendable {
        private let descriptor: Int32
        private let pattern: TestPattern
        private let stopping = Atomic<Bool>(false)
        private let failed = Mutex<String?>(nil)

        init(descriptor: Int32, pattern: TestPattern) {
            self.descriptor = descriptor
            self.pattern = pattern
        }

        /// Why writing stopped before ``stop()``, if it did.
        var failure: String? { failed.withLock { $0 } }

        func stop() { stopping.store(true, ordering: .releasing) }

        func run() {
            let period = Int64(1_000_000_000 / GlassFrames.fps)
            var frame = [UInt8](repeating: 0, count: GlassFrames.frameBytes)
            var deadline = MediaTime.now.value
            var index = 0
            while !stopping.load(ordering: .acquiring) {
                do {
                    try GlassFrames.raw(pattern, index: index, into: &frame)
                } catch {
                    failed.withLock { $0 = "cannot draw frame \(index): \(error)" }
                    return
                }
                deadline += period
                MediaTime.sleep(until: MediaTime(value: deadline, timescale: 1_000_000_000))
                let now = MediaTime.now.value
                frame.withUnsafeMutableBytes { FrameStamp.paint(now, into: $0, bytesPerRow: GlassFrames.width) }
                guard write(frame) else { return }
                index += 1
            }
        }

        private func write(_ frame: [UInt8]) -> Bool {
            frame.withUnsafeBytes { bytes in
                var written = 0
                while written < bytes.count {
                    let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                    if count > 0 {
                        written += count
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        let reason = String(cString: strerror(errno))
                        failed.withLock { $0 = "writing to ffmpeg failed: \(reason)" }
                        return false
                    }
                }
                return true
            }
        }
    }
}
