@testable import CaptureKit

extension SampleRecorder {
    /// Waits until the device has captured `frames` frames of `duration` after `start`
    /// (monotonic nanoseconds), or after its stream began if that was later: until a delivered
    /// sample's capture began at least that long after. Counted on capture timestamps and
    /// sequence numbers, not on deliveries, so frames this recorder's output dropped (or the
    /// device skipped) still count: the wait measures the device's time, never the machine's
    /// speed. The stream's beginning is read from the samples (frame *n* is captured *n* frame
    /// durations after it, as virtual and file cameras number them), so a stream that started
    /// late on a busy machine is not credited with frames before its first. Every frame
    /// captured in between was fully handed to all the session's outputs before the sample
    /// that ended the wait (one device thread delivers them in order). Returns that sample, nil
    /// when `timeout` passed first.
    @discardableResult
    func waitUntilCaptured(_ frames: Int, of duration: MediaTime, after start: Int64,
                           timeout: Duration = .seconds(30)) async -> ReceivedSample? {
        let period = duration.nanoseconds ?? 0
        let reached: @Sendable (ReceivedSample) -> Bool = { sample in
            guard let pts = sample.sample.presentationTimeStamp.nanoseconds else { return false }
            let streamStart = pts - Int64(sample.sequenceNumber) * period
            return pts >= max(start, streamStart) + Int64(frames) * period
        }
        guard await samples.wait(timeout: timeout, until: { $0.last.map(reached) ?? false }) else { return nil }
        return samples.items.first(where: reached)
    }
}
