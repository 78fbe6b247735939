import CaptureKit
import Dispatch
import Synchronization

/// The delegate of `network-frame-age`'s CaptureKit case: notes each frame's age on arrival —
/// the clock when the delegate is called minus the ``FrameStamp`` read from the frame's luma,
/// the moment the camera made it — snapshots the process's CPU when the measured window opens
/// and closes, and wakes the benchmark at the end. The first `warmUp` frames are left out (the
/// connection's start-up: frames queued while the stream was being probed), then `frames` are
/// measured, read or not.
final class StampAgeRecorder: SampleBufferDelegate {
    private struct State {
        var seen = 0
        var ages = StampedAges()
        var start: ResourceSnapshot?
        var end: ResourceSnapshot?
    }

    private let warmUp: Int
    private let frames: Int
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    init(warmUp: Int, frames: Int) {
        self.warmUp = warmUp
        self.frames = frames
    }

    /// Waits for the window to close; false after `seconds` without it.
    func wait(seconds: Double) -> Bool {
        done.wait(timeout: .now() + .nanoseconds(Int(seconds * 1e9))) == .success
    }

    /// The window's ages, with its wall and CPU time once it has closed.
    var result: StampedAges {
        state.withLock { state in
            var ages = state.ages
            if let start = state.start, let end = state.end {
                ages.wallSeconds = end.wallSeconds(since: start)
                ages.cpuSeconds = end.cpuSeconds(since: start)
            }
            return ages
        }
    }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        // First, so that nothing this delegate does is in the age.
        let arrival = MediaTime.now.value
        let finished = state.withLock { state -> Bool in
            state.seen += 1
            if state.seen == warmUp { state.start = ResourceSnapshot.now() }
            guard state.seen > warmUp, state.ages.frames < frames else { return false }
            state.ages.note(stamp: sampleBuffer.pixelBuffer.flatMap(Self.stamp), arrival: arrival)
            guard state.ages.frames == frames else { return false }
            state.end = ResourceSnapshot.now()
            return true
        }
        if finished { done.signal() }
    }

    /// The stamp in a frame's luma, in whichever YUV or grey format the output delivers (the
    /// camera's decoded format: no conversion is asked for, as an application would not); nil
    /// for RGB and raw Bayer, which have no luma plane to read.
    private static func stamp(_ frame: PixelBuffer) -> Int64? {
        let layout: (stride: Int, offset: Int)
        switch frame.pixelFormat {
        case .yuv420p, .yuv422p, .nv12, .nv21, .gray8: layout = (1, 0)
        case .yuyv422: layout = (2, 0)
        case .uyvy422: layout = (2, 1)
        default: return nil
        }
        return frame.withUnsafeBytes(ofPlane: 0) { bytes in
            FrameStamp.read(FrameStamp.Luma(bytes: bytes, bytesPerRow: frame.bytesPerRow(ofPlane: 0), pixelStride: layout.stride,
                                            offset: layout.offset, width: frame.width, height: frame.height))
        }
    }
}
