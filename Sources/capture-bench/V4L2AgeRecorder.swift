import CaptureKit
import Dispatch
import Glibc
import Synchronization

/// A sample-buffer delegate that notes each frame's age on arrival (now − its kernel
/// timestamp, both CLOCK_MONOTONIC), snapshots the process's CPU when the measured window
/// opens and closes, and wakes the benchmark at the end. The first `warmUp` frames are left out
/// (stream start-up), then `frames` are measured. With a `daemon`, that process's CPU is read at
/// the same two instants (`/proc/PID/stat`).
final class V4L2AgeRecorder: SampleBufferDelegate {
    private struct State {
        var seen = 0
        var ages = V4L2FrameAges()
        var start: ResourceSnapshot?
        var end: ResourceSnapshot?
        var firstSequence: UInt64 = 0
        var lastSequence: UInt64 = 0
        var daemonStart = 0.0, daemonEnd = 0.0
        /// Measured frames that came by reference in the device's (or the daemon's) buffer.
        var lent = 0
    }

    private let warmUp: Int
    private let frames: Int
    private let daemon: pid_t?
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    init(warmUp: Int, frames: Int, daemon: pid_t? = nil) {
        self.warmUp = warmUp
        self.frames = frames
        self.daemon = daemon
    }

    /// Waits for the window to close; false after `seconds` without it.
    func wait(seconds: Double) -> Bool {
        done.wait(timeout: .now() + .nanoseconds(Int(seconds * 1e9))) == .success
    }

    /// The window's ages, its resource snapshots and how many frames the driver produced in it
    /// (by sequence number).
    var result: (ages: V4L2FrameAges, start: ResourceSnapshot?, end: ResourceSnapshot?, produced: Int, daemonCPUSeconds: Double, lent: Int) {
        state.withLock { ($0.ages, $0.start, $0.end, Int($0.lastSequence - $0.firstSequence), $0.daemonEnd - $0.daemonStart, $0.lent) }
    }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let arrival = MediaTime.now.value
        let finished = state.withLock { state -> Bool in
            state.seen += 1
            if state.seen == warmUp {
                state.start = ResourceSnapshot.now()
                if let daemon { state.daemonStart = V4L2FFmpegPeer.cpuSeconds(of: daemon) }
                state.firstSequence = sampleBuffer.sequenceNumber
                return false
            }
            guard state.seen > warmUp, state.ages.count < frames, let stamp = sampleBuffer.presentationTimeStamp.nanoseconds else { return false }
            state.ages.append(arrival - stamp)
            if sampleBuffer.pixelBuffer?.storage.isLent == true { state.lent += 1 }
            guard state.ages.count == frames else { return false }
            state.end = ResourceSnapshot.now()
            if let daemon { state.daemonEnd = V4L2FFmpegPeer.cpuSeconds(of: daemon) }
            state.lastSequence = sampleBuffer.sequenceNumber
            return true
        }
        if finished { done.signal() }
    }
}
