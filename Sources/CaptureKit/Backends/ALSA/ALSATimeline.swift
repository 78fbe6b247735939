/// Places ALSA reads on the session's monotonic clock, in frames of the stream's rate.
///
/// A read's frames were captured just before it returned, minus what still waits in the
/// PCM's buffer (`snd_pcm_delay`): its first frame's capture time is *now − delay − frames*.
/// Timestamps run on the sample count from the first read (so buffers join exactly, without
/// jitter) and only follow the clock when the two disagree by more than the buffer could hold:
/// - capture later than expected by more than that: frames were lost (an xrun, a stalled
///   thread, a slow sound card clock); the timeline jumps forward and the gap is reported;
/// - more frames than the elapsed time allows: the PCM is not paced by a clock (the `file` and
///   `null` plugins, a sound server delivering bursts, a card whose clock runs fast); from then
///   on every buffer is delivered when its last frame is due on the monotonic clock, like a
///   real microphone, so audio never runs ahead of video.
///
/// Before that is certain, no buffer is delivered ahead of its time either: one whose last frame
/// is due later than now waits until then. (A PCM that starts with a burst — the `file` plugin
/// hands over its first 120 ms at once, the `pulse` plugin 80 ms at a time — otherwise had its
/// buffers delivered up to 115 ms before the times they were stamped with.)
struct ALSATimeline {
    /// What to do with one read.
    struct Placement: Equatable {
        /// The first frame's time, in frames of the rate on the monotonic clock.
        var presentationFrame: Int64
        /// Frames that were lost before this read (0 when none).
        var gapFrames: Int64
        /// When to deliver, in monotonic frames: later than now when the last frame is not due
        /// yet (every buffer of an unpaced PCM, the bursts of a paced one).
        var dueFrame: Int64
    }

    let rate: Int
    let bufferFrames: Int
    /// How far clock and sample count may disagree before it counts as lost or extra frames.
    let tolerance: Int64
    private var origin: Int64?
    private var delivered: Int64 = 0
    private var startFrame: Int64 = 0
    private var readFrames: Int64 = 0
    /// Whether the PCM delivered more than time allows (see the type's description); sticky.
    private(set) var isUnpaced = false

    init(rate: Int, bufferFrames: Int) {
        self.rate = rate
        self.bufferFrames = bufferFrames
        tolerance = Int64(bufferFrames + rate / 50)
    }

    /// Places `count` frames read at `now` (monotonic frames) with `delay` frames still buffered.
    /// `afterXrun` says the PCM overran since the last read, so frames were certainly lost.
    mutating func place(count: Int, now: Int64, delay: Int, afterXrun: Bool) -> Placement {
        let estimate = now - Int64(delay) - Int64(count)
        guard let currentOrigin = origin else {
            origin = estimate
            startFrame = estimate
            readFrames = Int64(count)
            delivered = Int64(count)
            return Placement(presentationFrame: estimate, gapFrames: 0, dueFrame: now)
        }
        readFrames += Int64(count)
        if !isUnpaced, readFrames > now - startFrame + tolerance {
            isUnpaced = true
        }
        var gap: Int64 = 0
        let error = estimate - (currentOrigin + delivered)
        if error > tolerance || (afterXrun && error > 0) {
            gap = error
            origin = currentOrigin + error
        }
        let pts = (origin ?? estimate) + delivered
        delivered += Int64(count)
        return Placement(presentationFrame: pts, gapFrames: gap, dueFrame: isUnpaced ? pts + Int64(count) : max(now, pts + Int64(count)))
    }
}
