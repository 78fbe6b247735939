import CaptureKit
import Synchronization

/// A `multicam` camera's data-output delegate: counts the frames it is handed and the
/// `didDrop` calls it hears, and does nothing else with them, so the row measures delivery, not
/// a consumer's work.
final class MultiCamFrameCounter: SampleBufferDelegate, Sendable {
    private let frames = Atomic<Int>(0)
    private let drops = Atomic<Int>(0)

    /// Frames delivered so far.
    var delivered: Int { frames.load(ordering: .relaxed) }
    /// `didDrop` calls so far.
    var dropped: Int { drops.load(ordering: .relaxed) }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        frames.add(1, ordering: .relaxed)
    }

    func captureOutput(_ output: CaptureOutput, didDrop droppedFrame: DroppedFrame, from connection: CaptureConnection) {
        drops.add(1, ordering: .relaxed)
    }
}
