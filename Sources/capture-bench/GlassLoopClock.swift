import CaptureKit
import Synchronization

/// When CaptureKit's camera in `glass-to-glass` captured the frame at a loop position.
///
/// The virtual camera delivers frame *n* of its stream at its deadline, start + (*n* + 1)
/// periods on CLOCK_MONOTONIC (its timestamp is the start of the frame's span, it is handed on
/// once the span is over: the moment a real camera's frame is ready), showing picture *n* mod
/// ``GlassFrames/loopLength``. As the delegate of a ``CaptureVideoDataOutput`` beside the stream
/// output, this learns the grid from the first frame whose stamp it reads: its timestamp, its
/// duration and the loop position in its picture (read from the picture, not derived from a
/// sequence number, so nothing is assumed about how frames are numbered); the
/// capture time of a loop position read back at the receiver is then that of the newest frame
/// with that position delivered before it was decoded (a loop lasts 5 s, far longer than the
/// latency, so there is one).
///
/// It also keeps how late the delegate is called after each frame's deadline: a check that the
/// timestamps are on the clock the receiver reads (it would be seconds off otherwise) and how
/// close to the deadline the camera delivers.
final class GlassLoopClock: SampleBufferDelegate {
    private struct Grid {
        /// A frame's loop position, and the CLOCK_MONOTONIC ns at which it was delivered.
        var position: Int64
        var delivered: Int64
        /// The frame period in ns, and its exact fraction (ticks of the timestamps' timescale).
        var ticks: Int64
        var timescale: Int32
        var timestampTicks: Int64
    }

    private let grid = Mutex<Grid?>(nil)
    private let lateness = Mutex(V4L2FrameAges())

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let arrival = MediaTime.now.value
        let start = sampleBuffer.presentationTimeStamp, span = sampleBuffer.duration
        guard let delivered = (start + span).nanoseconds else { return }
        lateness.withLock { $0.append(arrival - delivered) }
        guard grid.withLock({ $0 == nil }), span.timescale == start.timescale, span.value > 0,
              let frame = sampleBuffer.pixelBuffer, frame.pixelFormat == .yuv420p,
              let position = frame.withUnsafeBytes(ofPlane: 0, { bytes in
                  FrameStamp.read(FrameStamp.Luma(bytes: bytes, bytesPerRow: frame.bytesPerRow(ofPlane: 0),
                                                  width: frame.width, height: frame.height))
              }) else { return }
        grid.withLock { grid in
            grid = Grid(position: position, delivered: delivered, ticks: span.value, timescale: start.timescale,
                        timestampTicks: start.value + span.value)
        }
    }

    /// The delivery time (CLOCK_MONOTONIC ns) of the newest frame showing loop position
    /// `position` delivered by `arrival`; nil before the first frame or for a position outside
    /// the loop.
    func captureTime(ofPosition position: Int64, before arrival: Int64) -> Int64? {
        guard let grid = grid.withLock({ $0 }), (0..<Int64(GlassFrames.loopLength)).contains(position) else { return nil }
        let loop = Int64(GlassFrames.loopLength)
        // Frames counted from the grid's: the one delivered last before `arrival`, then back to
        // the newest showing `position` (frame r shows position grid.position + r, mod the loop).
        let periodNs = Double(grid.ticks) * 1e9 / Double(grid.timescale)
        let newest = Int64((Double(arrival - grid.delivered) / periodNs).rounded(.down))
        let frame = newest - (((newest + grid.position - position) % loop) + loop) % loop
        guard frame >= 0 else { return nil }
        return MediaTime(value: grid.timestampTicks + frame * grid.ticks, timescale: grid.timescale).nanoseconds
    }

    /// How late the delegate was called after the frames' deadlines, over the whole run.
    var delegateLateness: V4L2FrameAges { lateness.withLock { $0 } }
}
