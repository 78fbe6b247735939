/// Places captured audio on the monotonic clock.
///
/// A sound server says how old the oldest unread sample is (its latency); "now − latency" is
/// therefore when a buffer's first sample was captured. That measurement jitters with thread
/// wake-ups, while the samples themselves are evenly spaced, so buffers are stamped from a
/// sample-exact running position (consecutive buffers join with no gap and no overlap) that
/// follows the measurement: a lasting difference of more than 5 ms (clock drift between sound
/// card and CPU, or a source that delivers fewer samples than time passes) is corrected in one
/// small step, and a jump larger than ``discontinuityThreshold`` is a discontinuity — lost audio
/// (a gap, reported) or a restart — after which the position is taken from the measurement
/// again. Recordings fill a gap with silence, so audio keeps its place against video.
///
/// One bound is not a measurement but a fact: a buffer's last sample was captured before the
/// buffer was read. The server's latency report runs low (PipeWire's pulse server often reports
/// less than the buffer it hands over, and close to nothing at stream start), which placed audio
/// up to 20 ms after it had already arrived. So no buffer ends after its read time: a measurement
/// that says so is cut to it, and a position that would is stepped back at once (to 1 ms before
/// it). Nor does the
/// position step later than the last ``headroomWindow`` reads allow (the samples since then kept
/// their spacing unless the server reported a hole), so a late read cannot pull it forward only
/// for the next prompt one to push it back.
struct AudioTimeline: Sendable {
    /// Samples per second; timestamps are in this timescale (sample-exact).
    let sampleRate: Int
    /// How far the measurement may stray before it counts as a discontinuity (40 ms: more than
    /// any scheduling jitter, less than a 25 fps video frame).
    let discontinuityThreshold: Int64
    /// Where the next buffer starts, in samples on the monotonic clock; nil before the first.
    private(set) var nextStart: Int64?
    /// Samples placed so far, gaps included: the sequence number of the next buffer.
    private(set) var position: Int64 = 0
    /// The difference between measured and placed times, averaged over ~64 buffers.
    private var filteredError: Double = 0
    /// How far the average may stray before the position follows it (5 ms: far below a video
    /// frame, far above the server's timing noise, so buffers rarely need a step).
    let driftTolerance: Int64
    /// For the last ``headroomWindow`` buffers, how much later each could have started without
    /// ending after its read time, relative to the current position.
    private var headroom: [Int64] = []
    private var headroomNext = 0
    /// Buffers the headroom is taken over: the filter's horizon.
    static let headroomWindow = 64
    /// How far before its read time a buffer that would have ended after it is put (1 ms).
    let stepBackMargin: Int64

    init(sampleRate: Int) {
        self.sampleRate = sampleRate
        discontinuityThreshold = Int64(sampleRate) / 25
        driftTolerance = Int64(sampleRate) / 200
        stepBackMargin = Int64(sampleRate) / 1000
    }

    /// Where a buffer lands.
    struct Placement: Equatable, Sendable {
        /// The first sample's capture time, in samples on the monotonic clock.
        var start: Int64
        /// Samples missing before this buffer (0 when it follows the previous one).
        var gap: Int64
        /// The buffer's sequence number: samples placed before it, gaps included.
        var sequence: Int64
    }

    /// Places `frames` samples whose first one was measured at `measuredStartNanoseconds` on
    /// the monotonic clock, read (all of them in hand) at `readNanoseconds`.
    mutating func place(frames: Int, measuredStartNanoseconds: Int64, readNanoseconds: Int64) -> Placement {
        // The latest start that ends the buffer by its read time.
        let latest = MonotonicClock.samples(atNanoseconds: readNanoseconds, rate: sampleRate, rounding: .roundTowardNegativeInfinity) - Int64(frames)
        let measured = min(MonotonicClock.samples(atNanoseconds: measuredStartNanoseconds, rate: sampleRate, rounding: .roundHalfAwayFromZero), latest)
        var gap: Int64 = 0
        var start: Int64
        if let expected = nextStart {
            let error = measured - expected
            if error > discontinuityThreshold {
                gap = error                  // audio was lost: keep the rest in its real place
                start = measured
                resetFilter()
            } else if error < -discontinuityThreshold {
                start = measured             // restarted earlier than expected: follow the server
                resetFilter()
            } else {
                // Jitter averages out in the filtered error; only a lasting offset beyond the
                // tolerance (a sound-card clock drifting against the CPU's) moves the position,
                // in one small step, so buffers otherwise join exactly.
                filteredError += (Double(error) - filteredError) / 64
                start = expected
                if abs(filteredError) > Double(driftTolerance) {
                    var step = Int64(filteredError.rounded())
                    // Later only as far as every recent buffer would still end by its read time.
                    if step > 0 { step = min(step, max(0, min(headroom.min() ?? 0, latest - expected))) }
                    if step == 0 {
                        filteredError = min(filteredError, Double(driftTolerance))   // no wind-up while blocked
                    } else {
                        move(by: step)
                        start = expected + step
                    }
                }
            }
        } else {
            start = measured
        }
        if start > latest {
            // Never after the read: step back now, whatever the filter says, and a little
            // further, so a source whose clock runs fast is followed in steps, not every buffer.
            let back = latest - stepBackMargin
            move(by: back - start)
            start = back
        }
        remember(headroom: latest - start)
        let placement = Placement(start: start, gap: gap, sequence: position + gap)
        position += gap + Int64(frames)
        nextStart = start + Int64(frames)
        return placement
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

    /// Records `frames` samples the server reported as lost (a hole in the stream): the next
    /// buffer starts that much later.
    mutating func skip(frames: Int) {
        position += Int64(frames)
        nextStart = nextStart.map { $0 + Int64(frames) }
    }

    /// Starts a new run after the stream was away: the next buffer is placed at its measured
    /// time with no gap reported (the absence was reported as a disconnection), and sequence
    /// numbers go on.
    mutating func restart() {
        nextStart = nil
        resetFilter()
    }

    /// The time of sample `start` as a media time in the sample rate's timescale.
    func time(ofSample start: Int64) -> MediaTime {
        MediaTime(value: start, timescale: Int32(sampleRate))
    }
}
