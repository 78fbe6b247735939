/// What `VIDIOC_DQBUF` hands back.
struct V4L2DequeuedBuffer: Sendable, Hashable {
    var index: Int
    var bytesUsed: Int
    /// The driver's frame counter; a jump means it dropped frames.
    var sequence: UInt32
    /// Capture time in nanoseconds on `CLOCK_MONOTONIC`, or nil when the driver's clock is not
    /// monotonic (then the time of dequeueing is used).
    var monotonicTimestamp: Int64?
    /// `V4L2_BUF_FLAG_ERROR`: the data may be damaged.
    var hasError: Bool
}
