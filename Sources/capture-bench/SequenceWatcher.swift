import CaptureKit
import Dispatch
import Synchronization

/// A sample-buffer delegate that only counts: it notes the highest sequence number seen (the
/// camera's running frame index, so `highest + 1` frames have been produced) and wakes the
/// benchmark once the camera has produced enough frames and enough time has passed. One
/// watcher may serve several outputs at once.
final class SequenceWatcher: SampleBufferDelegate {
    private let minimumFrames: UInt64
    private let notBefore: Int64
    /// Highest sequence number + 1; 0 until a frame arrives.
    private let produced = Atomic<UInt64>(0)
    private let fired = Atomic<Bool>(false)
    private let reached = DispatchSemaphore(value: 0)

    /// Wakes ``wait(seconds:)`` once a frame with index `minimumFrames - 1` or later arrives at
    /// or after `notBefore` (monotonic nanoseconds).
    init(minimumFrames: Int, notBefore: Int64) {
        self.minimumFrames = UInt64(max(1, minimumFrames))
        self.notBefore = notBefore
    }

    /// Frames the camera had produced by the newest frame seen.
    var producedFrames: Int { Int(produced.load(ordering: .acquiring)) }

    /// Waits until the goal is reached; false after `seconds` without it.
    func wait(seconds: Double) -> Bool {
        reached.wait(timeout: .now() + .nanoseconds(Int(seconds * 1e9))) == .success
    }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let count = sampleBuffer.sequenceNumber + 1
        produced.max(count, ordering: .acquiringAndReleasing)
        // Whatever this delegate spends is charged to CaptureKit, so it does no more than an
        // atomic max and, once enough frames came, a vDSO clock read (~20 ns).
        guard count >= minimumFrames, MediaTime.now.value >= notBefore else { return }
        if !fired.exchange(true, ordering: .acquiringAndReleasing) { reached.signal() }
    }
}
