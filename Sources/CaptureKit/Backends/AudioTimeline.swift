/// Places captured audio on the session's monotonic clock, in samples of the stream's rate:
/// the one timeline of every audio backend, with a ``Policy`` for what differs between them.
///
/// Each read comes with a measurement of when its first sample was captured — *now − delay −
/// frames* for a sound card (`snd_pcm_delay`), *now − latency* for a sound server (the age of
/// the oldest unread sample) — and with its read time. Timestamps run on the sample count
/// (consecutive buffers join with no gap and no overlap, without the measurement's jitter) and
/// follow the measurement only when the two disagree by more than the policy's tolerance, or
/// after a loss the backend is sure of (an xrun): then audio was lost (an xrun, a stalled
/// thread, a slow source clock), the timeline jumps forward and the gap is reported. Sequence
/// numbers count the samples placed, gaps included. Besides that, the policy says whom to
/// believe:
///
/// - **The sample count** (``Policy/card(rate:bufferFrames:)``): a card's delay is exact, so
///   a measurement earlier than the count says means more frames than time allows — a PCM not
///   paced by a clock (the `file` and `null` plugins, a sound server delivering bursts, a card
///   whose clock runs fast). From then on (``isUnpaced``) every buffer is due when its last
///   frame is, like a real microphone's, so audio never runs ahead of video. Before that is
///   certain no buffer is due before its last frame either (the `file` plugin hands over its
///   first 120 ms at once, the `pulse` plugin 80 ms at a time: delivered at once, they came up
///   to 115 ms before the times they were stamped with).
/// - **The measurement, on average** (``Policy/soundServer(rate:)``): a server's latency report
///   jitters with thread wake-ups, so a lasting difference beyond the drift tolerance (clock
///   drift between sound card and CPU, or a source that delivers fewer samples than time
///   passes) is followed in one small step, and one earlier than the tolerance is a restart,
///   followed at once. One bound is not a measurement but a fact: a buffer's last sample was
///   captured before the buffer was read. The report runs low (PipeWire's pulse server often
///   reports less than the buffer it hands over, and close to nothing at stream start), which
///   placed audio up to 20 ms after it had already arrived; so no buffer ends after its read
///   time: a measurement that says so is cut to it, and a position that would is stepped back
///   at once (to ``stepBackMargin`` before it). Nor does the position step later than the
///   last ``headroomWindow`` reads allow (the samples since then kept their spacing unless the
///   server reported a hole), so a late read cannot pull it forward only for the next prompt
///   one to push it back. Every buffer is therefore due when it is read.
struct AudioTimeline: Sendable {
    /// What a backend's measurement is worth.
    struct Policy: Sendable, Equatable {
        /// How far measurement and sample count may disagree before it is lost audio (or, for
        /// a sound server, a restart).
        var tolerance: Int64
        /// How far the measurement's average may stray before the position follows it; nil
        /// when the sample count is believed and the measurement only reveals losses and
        /// unpaced sources (which are then paced).
        var driftTolerance: Int64?

        /// A sound card read with `snd_pcm_delay`: what the PCM's buffer holds plus 20 ms.
        static func card(rate: Int, bufferFrames: Int) -> Policy {
            Policy(tolerance: Int64(bufferFrames + rate / 50), driftTolerance: nil)
        }

        /// A sound server's latency report: 40 ms of tolerance (more than any scheduling jitter,
        /// less than a 25 fps video frame) and 5 ms of drift (far below a video frame, far above
        /// the server's timing noise, so buffers rarely need a step).
        static func soundServer(rate: Int) -> Policy {
            Policy(tolerance: Int64(rate) / 25, driftTolerance: Int64(rate) / 200)
        }
    }

    /// Where a buffer lands.
    struct Placement: Equatable, Sendable {
        /// The first sample's capture time, in samples on the monotonic clock.
        var start: Int64
        /// Samples missing before this buffer (0 when it follows the previous one).
        var gap: Int64
        /// The buffer's sequence number: samples placed before it, gaps included.
        var sequence: Int64
        /// When to deliver it, in samples on the monotonic clock: later than its read when its
        /// last sample is not due yet (every buffer of an unpaced source, a paced one's bursts).
        var due: Int64
    }

    /// Samples per second.
    let rate: Int
    let policy: Policy
    /// Where the next buffer starts, in samples on the monotonic clock; nil before the first.
    private(set) var nextStart: Int64?
    /// Samples placed so far, gaps included: the sequence number of the next buffer.
    private(set) var position: Int64 = 0
    /// Whether the source delivered more than time allows since its first read (a believed
    /// sample count only); sticky.
    private(set) var isUnpaced = false
    /// The first read's measured start, and the samples read since (it included).
    private var runStart: Int64 = 0
    private var runSamples: Int64 = 0
    /// The difference between measured and placed times, averaged over ~64 buffers.
    private var filteredError: Double = 0
    /// For the last ``headroomWindow`` buffers, how much later each could have started without
    /// ending after its read time, relative to the current position.
    private var headroom: [Int64] = []
    private var headroomNext = 0
    /// Buffers the headroom is taken over: the filter's horizon.
    static let headroomWindow = 64
    /// How far before its read time a buffer that would have ended after it is put (1 ms).
    let stepBackMargin: Int64

    init(rate: Int, policy: Policy) {
        self.rate = rate
        self.policy = policy
        stepBackMargin = Int64(rate) / 1000
    }

    /// Places `frames` samples whose first one was measured at `measuredStartNanoseconds` on
    /// the monotonic clock, read (all of them in hand) at `readNanoseconds`: the measurement to
    /// the nearest sample, the read to the sample before it (a sample is in hand once read).
    mutating func place(frames: Int, measuredStartNanoseconds: Int64, readNanoseconds: Int64) -> Placement {
        place(frames: frames,
              measuredStart: MonotonicClock.samples(atNanoseconds: measuredStartNanoseconds, rate: rate, rounding: .roundHalfAwayFromZero),
              read: MonotonicClock.samples(atNanoseconds: readNanoseconds, rate: rate, rounding: .roundTowardNegativeInfinity))
    }

    /// Places a sound card's read of `frames` frames that returned at frame `now` on the
    /// monotonic clock with `delay` frames still buffered (`snd_pcm_delay`): they were captured
    /// just before it returned, less what still waits. `afterLoss` says the PCM overran since
    /// the last read, so frames were certainly lost.
    mutating func place(frames: Int, readAt now: Int64, delay: Int, afterLoss: Bool) -> Placement {
        place(frames: frames, measuredStart: now - Int64(delay) - Int64(frames), read: now, afterLoss: afterLoss)
    }

    /// Places `frames` samples whose first one was measured at sample `measuredStart` on the
    /// monotonic clock, read at sample `read`. `afterLoss` says samples were certainly lost
    /// since the last read, so any lateness is a gap.
    private mutating func place(frames: Int, measuredStart: Int64, read: Int64, afterLoss: Bool = false) -> Placement {
        let count = Int64(frames)
        // The latest start that ends the buffer by its read time.
        let latest = read - count
        let measured = policy.driftTolerance == nil ? measuredStart : min(measuredStart, latest)
        var gap: Int64 = 0
        var start: Int64
        if let expected = nextStart {
            runSamples += count
            // Only a believed count reveals a source that runs ahead of time: a server's
            // stamps are bounded by the reads.
            if policy.driftTolerance == nil, !isUnpaced, runSamples > read - runStart + policy.tolerance { isUnpaced = true }
            let error = measured - expected
            if error > policy.tolerance || (afterLoss && error > 0) {
                gap = error                  // audio was lost: keep the rest in its real place
                start = measured
                resetFilter()
            } else if let driftTolerance = policy.driftTolerance {
                start = follow(error, expected: expected, latest: latest, driftTolerance: driftTolerance)
            } else {
                start = expected
            }
        } else {
            start = measured
            runStart = measured
            runSamples = count
        }
        if policy.driftTolerance != nil {
            if start > latest {
                // Never after the read: step back now, whatever the filter says, and a little
                // further, so a source whose clock runs fast is followed in steps, not every buffer.
                let back = latest - stepBackMargin
                move(by: back - start)
                start = back
            }
            remember(headroom: latest - start)
        }
        let placement = Placement(start: start, gap: gap, sequence: position + gap,
                                  due: isUnpaced ? start + count : max(read, start + count))
        position += gap + count
        nextStart = start + count
        return placement
    }

    /// Where a buffer starts whose measurement is `error` samples off the `expected` start,
    /// within the tolerance or earlier, for a measurement believed on average.
    private mutating func follow(_ error: Int64, expected: Int64, latest: Int64, driftTolerance: Int64) -> Int64 {
        if error < -policy.tolerance {
            resetFilter()                    // restarted earlier than expected: follow the server
            return expected + error
        }
        // Jitter averages out in the filtered error; only a lasting offset beyond the tolerance
        // (a sound-card clock drifting against the CPU's) moves the position, in one small
        // step, so buffers otherwise join exactly.
        filteredError += (Double(error) - filteredError) / 64
        guard abs(filteredError) > Double(driftTolerance) else { return expected }
        var step = Int64(filteredError.rounded())
        // Later only as far as every recent buffer would still end by its read time.
        if step > 0 { step = min(step, max(0, min(headroom.min() ?? 0, latest - expected))) }
        if step == 0 {
            filteredError = min(filteredError, Double(driftTolerance))   // no wind-up while blocked
            return expected
        }
        move(by: step)
        return expected + step
    }

    /// Accounts for a step of the position by `step` samples (later when positive): the
    /// filtered error and the headroom are relative to the position.
    private mutating func move(by step: Int64) {
        filteredError -= Double(step)
        for index in headroom.indices { headroom[index] -= step }
    }

    private mutating func remember(headroom value: Int64) {
        if headroom.count < Self.headroomWindow {
            headroom.append(value)
        } else {
            headroom[headroomNext] = value
            headroomNext = (headroomNext + 1) % Self.headroomWindow
        }
    }

    private mutating func resetFilter() {
        filteredError = 0
        headroom.removeAll(keepingCapacity: true)
        headroomNext = 0
    }

    /// Records `frames` samples the source reported as lost (a sound server's hole in the
    /// stream): the next buffer starts that much later.
    mutating func skip(frames: Int) {
        position += Int64(frames)
        nextStart = nextStart.map { $0 + Int64(frames) }
    }

    /// Starts a new run after the source was away: the next buffer is placed at its measured
    /// time with no gap reported (the absence was reported as a disconnection), and sequence
    /// numbers go on.
    mutating func restart() {
        nextStart = nil
        resetFilter()
    }

    /// The time of sample `start` as a media time in the rate's timescale.
    func time(ofSample start: Int64) -> MediaTime {
        MediaTime(value: start, timescale: Int32(rate))
    }
}
