/// Where `VIDIOC_QUERYBUF` says a driver buffer is mapped from. Wraps struct v4l2_buffer as
/// that ioctl fills it (`index`, `m.offset`, `length`).
struct V4L2BufferLocation: Sendable, Hashable {
    var index: Int
    var offset: Int
    var length: Int
}

/// What `VIDIOC_DQBUF` hands back. Wraps struct v4l2_buffer as that ioctl fills it.
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

/// What waiting on a capture node found. Wraps struct pollfd's `revents`.
enum V4L2PollResult: Sendable, Equatable {
    /// A buffer can be dequeued.
    case readable
    /// Nothing within the timeout.
    case timeout
    /// The node reported an error or hang-up (`POLLERR`/`POLLHUP`): the device went away or
    /// its stream failed; dequeueing tells which.
    case failed
}
