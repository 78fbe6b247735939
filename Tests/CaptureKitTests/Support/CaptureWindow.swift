@testable import CaptureKit

/// How much of what a device produced over a stretch of a test reached a data output, counted
/// by sequence number: the measure of this run's load that a rate check compares with. A test
/// that must show something does not slow capture measures a window without it and one with
/// it, and compares the two fractions, never a fixed frame rate.
struct CaptureWindow: CustomStringConvertible {
    /// Sequence numbers the device went through: from the frame before the window to its last.
    var produced: Int
    /// Frames delivered in the window.
    var delivered: Int

    /// The share of produced frames that were delivered (1 on an idle machine).
    var deliveredFraction: Double { Double(delivered) / Double(max(1, produced)) }

    /// Waits (up to `timeout`, a deadline, not a rate) until `recorder` got `frames` more
    /// frames, and measures them; nil when they did not come.
    static func measure(_ recorder: SampleRecorder, frames: Int, timeout: Duration = .seconds(30)) async -> CaptureWindow? {
        let start = recorder.samples.count
        guard start > 0, await recorder.samples.wait(forCount: start + frames, timeout: timeout) else { return nil }
        let items = recorder.samples.items
        return CaptureWindow(produced: Int(items[start + frames - 1].sequenceNumber - items[start - 1].sequenceNumber), delivered: frames)
    }

    var description: String {
        "\(delivered) of \(produced) frames delivered (\(Int((deliveredFraction * 100).rounded())) %)"
    }
}
