// Durations (Swift's clocks, the public API's timeouts) in the units CaptureKit counts in.

import Dispatch

extension Duration {
    /// The duration for `DispatchSemaphore.wait(timeout:)`.
    package var dispatchInterval: DispatchTimeInterval { .nanoseconds(Int(nanoseconds)) }

    /// The duration in whole nanoseconds, as the monotonic clock and the kernel count.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension MediaTime {
    /// `duration` as a media time in nanoseconds.
    package init(_ duration: Duration) { self.init(value: duration.nanoseconds, timescale: 1_000_000_000) }
}
