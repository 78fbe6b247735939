/// Numbers a stream's frames and counts the frames the driver skipped, from the jumps in its
/// buffer sequence numbers. The numbers handed out run on from the driver's first one and grow
/// by one per frame plus the frames skipped before it, so a consumer can account for every
/// frame by number even where the driver's own counter does not (a restart, a renumbering).
///
/// v4l2loopback resets every buffer's sequence number (to 0) and timestamp at VIDIOC_REQBUFS,
/// and the first VIDIOC_DQBUF of a stream hands out the frame written last before that,
/// numbered 0, while the next one carries the writer's running count (hundreds or thousands
/// on). That jump is a renumbering, not a loss: it is recognised as a first frame numbered 0
/// followed by a jump larger than the time between the two frames can hold.
struct V4L2SequenceTracker: Sendable {
    /// What became of one frame's sequence number.
    struct Step: Sendable, Equatable {
        /// The frame's number in the stream's count.
        var number: UInt64
        /// Frames the driver skipped since the previous one.
        var skipped: Int
    }

    private var last: (sequence: UInt32, time: Int64, number: UInt64)?
    private var frames = 0

    /// Notes frame `sequence`, captured (or dequeued) at `time` nanoseconds, of a stream with
    /// frames `frameDuration` nanoseconds apart (0 when unknown). A sequence that goes
    /// backwards (the driver restarted counting) skips nothing.
    mutating func record(_ sequence: UInt32, at time: Int64, frameDuration: Int64) -> Step {
        frames += 1
        let step: Step
        if let previous = last {
            var skipped = sequence > previous.sequence ? Int(sequence - previous.sequence - 1) : 0
            if frames == 2, previous.sequence == 0, skipped > 0, frameDuration > 0 {
                // Twice the frames the time allows, and some: a driver whose frame interval is
                // off by a factor (or whose clock is the dequeue time) keeps its real skips.
                let possible = 2 * max(0, time - previous.time) / frameDuration + 2
                if skipped > possible { skipped = 0 }
            }
            step = Step(number: previous.number + UInt64(skipped) + 1, skipped: skipped)
        } else {
            step = Step(number: UInt64(sequence), skipped: 0)
        }
        last = (sequence, time, step.number)
        return step
    }
}
