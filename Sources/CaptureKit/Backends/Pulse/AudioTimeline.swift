/// Places captured audio on the monotonic clock.
///
/// A sound server says how old the oldest unread sample is (its latency); "now − latency" is
/// therefore when a buffer's first sample was captured. That measurement jitters with thread
/// wake-ups, while the samples themselves are evenly spaced, so buffers are stamped from a
/// sample-exact running position (consecutive buffers join with no gap and no overlap) that
/// follows the measurement: a lasting difference of more than 5 ms (clock drift between sound
/// card and CPU) is corrected in one small step, and a jump larger than ``discontinuityThreshold`` is a
/// discontinuity — lost audio (a gap, reported) or a restart — after which the position is taken
/// from the measurement again. Recordings fill a gap with silence, so audio keeps its place
/// against video.
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

    init(sampleRate: Int) {
        self.sampleRate = sampleRate
        discontinuityThreshold = Int64(sampleRate) / 25
        driftTolerance = Int64(sampleRate) / 200
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
    /// the monotonic clock.
    mutating func place(frames: Int, measuredStartNanoseconds: Int64) -> Placement {
        let measured = Self.samples(fromNanoseconds: measuredStartNanoseconds, rate: sampleRate)
        var gap: Int64 = 0
        let start: Int64
        if let expected = nextStart {
            let error = measured - expected
            if error > discontinuityThreshold {
                gap = error                  // audio was lost: keep the rest in its real place
                start = measured
                filteredError = 0
            } else if error < -discontinuityThreshold {
                start = measured             // restarted earlier than expected: follow the server
                filteredError = 0
            } else {
                // Jitter averages out in the filtered error; only a lasting offset beyond the
                // tolerance (a sound-card clock drifting against the CPU's) moves the position,
                // in one small step, so buffers otherwise join exactly.
                filteredError += (Double(error) - filteredError) / 64
                if abs(filteredError) > Double(driftTolerance) {
                    let step = Int64(filteredError.rounded())
                    filteredError -= Double(step)
                    start = expected + step
                } else {
                    start = expected
                }
            }
        } else {
            start = measured
        }
        let placement = Placement(start: start, gap: gap, sequence: position + gap)
        position += gap + Int64(frames)
        nextStart = start + Int64(frames)
        return placement
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
        filteredError = 0
    }

    /// The time of sample `start` as a media time in the sample rate's timescale.
    func time(ofSample start: Int64) -> MediaTime {
        MediaTime(value: start, timescale: Int32(sampleRate))
    }

    static func samples(fromNanoseconds nanoseconds: Int64, rate: Int) -> Int64 {
        // Split to stay exact and within Int64 for any uptime.
        let seconds = nanoseconds / 1_000_000_000
        let rest = nanoseconds % 1_000_000_000
        return seconds * Int64(rate) + (rest * Int64(rate) + 500_000_000) / 1_000_000_000
    }
}
