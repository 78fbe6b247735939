/// What one reader of ``StampedRTSPCamera`` saw over its measured window in `network-frame-age`:
/// the age of every frame whose stamp it read, the frames whose stamp it could not read or had
/// seen already (neither is an age, both are counted so that none is silently left out), and the
/// window's wall and CPU time.
struct StampedAges: Sendable {
    var ages = V4L2FrameAges()
    /// Frames whose ``FrameStamp`` did not read (a block neither dark nor light, a wrong check word).
    var undecodable = 0
    /// Frames whose stamp was not newer than the last one read: a frame handed on twice.
    var repeated = 0
    var wallSeconds = 0.0
    var cpuSeconds = 0.0
    /// The last stamp read, to tell a repeat.
    private var lastStamp = Int64.min

    /// Every frame the window holds, read or not.
    var frames: Int { ages.count + undecodable + repeated }

    /// Notes a frame that arrived at `arrival` (CLOCK_MONOTONIC ns) with `stamp` (nil: unread).
    mutating func note(stamp: Int64?, arrival: Int64) {
        guard let stamp else { undecodable += 1; return }
        guard stamp > lastStamp else { repeated += 1; return }
        lastStamp = stamp
        ages.append(arrival - stamp)
    }

    /// Another run's frames and time added to these (rounds are pooled).
    mutating func add(_ other: StampedAges) {
        other.ages.samples.forEach { ages.append($0) }
        undecodable += other.undecodable
        repeated += other.repeated
        wallSeconds += other.wallSeconds
        cpuSeconds += other.cpuSeconds
    }

    /// "median 40.1 ms, p95 52.3 ms, max 80.0 ms over 600 frames (0 undecodable, 0 repeated)".
    var summary: String {
        guard let median = ages.percentile(0.5), let p95 = ages.percentile(0.95), let maximum = ages.percentile(1) else {
            return "no frame with a readable stamp (\(undecodable) undecodable, \(repeated) repeated)"
        }
        return "median \(V4L2FrameAges.milliseconds(median)) ms, p95 \(V4L2FrameAges.milliseconds(p95)) ms, "
            + "max \(V4L2FrameAges.milliseconds(maximum)) ms over \(ages.count) frames (\(undecodable) undecodable, \(repeated) repeated)"
    }
}
