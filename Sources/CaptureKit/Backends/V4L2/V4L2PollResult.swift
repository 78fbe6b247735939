/// What waiting on a capture node found.
enum V4L2PollResult: Sendable, Equatable {
    /// A buffer can be dequeued.
    case readable
    /// Nothing within the timeout.
    case timeout
    /// The node reported an error or hang-up (`POLLERR`/`POLLHUP`): the device went away or
    /// its stream failed; dequeueing tells which.
    case failed
}
