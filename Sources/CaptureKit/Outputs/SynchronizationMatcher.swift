/// Pairs the frames of several streams by time, as a value: the rules of
/// ``CaptureDataOutputSynchronizer`` with no output, thread or device behind them, so they are
/// tested alone.
///
/// Stream 0 is the master: each of its frames is a tick. A tick is settled once every other
/// stream has shown a frame at or after the tick's time (so the nearest frame is known), or
/// once ``maximumWait`` newer ticks are waiting (a stream that stalled or lost its camera holds
/// nothing up for long). A settled tick takes, from each other stream, the frame nearest its
/// time if it is within ``tolerance``; each frame goes to one tick at most. Frames no tick can
/// take any more are counted as skipped, and reported with the next tick.
struct SynchronizationMatcher<Payload: Sendable>: Sendable {
    /// One settled tick.
    struct Tick: Sendable {
        /// The master frame's time.
        var time: MediaTime
        /// The master frame.
        var master: Payload
        /// The frame each other stream gave, by stream index; absent: none within tolerance.
        var matched: [Int: (time: MediaTime, payload: Payload)]
        /// Streams that had no frame within tolerance of this tick.
        var unmatched: [Int]
        /// Frames of each stream that no tick took since the previous tick.
        var skipped: [Int: Int]
    }

    /// How many streams, the master included.
    let streamCount: Int
    /// How far from a tick a frame may be; nil: half the master's frame interval.
    var tolerance: MediaTime?
    /// How many ticks may wait for a late stream before the oldest is settled without it.
    var maximumWait = 4
    /// How many frames of a stream are kept while no tick takes them.
    var maximumKept = 32

    /// Master frames waiting for the other streams, each with the tolerance of its own interval.
    private var ticks: [(time: MediaTime, payload: Payload, tolerance: MediaTime)] = []
    private var frames: [[(time: MediaTime, payload: Payload)]]
    private var skipped: [Int]
    private var lastMasterTime: MediaTime?
    private var masterInterval: MediaTime?

    init(streamCount: Int, tolerance: MediaTime? = nil) {
        precondition(streamCount >= 1)
        self.streamCount = streamCount
        self.tolerance = tolerance
        frames = Array(repeating: [], count: streamCount)
        skipped = Array(repeating: 0, count: streamCount)
    }

    /// The tolerance for the next master frame: the set one, else half the master's last frame
    /// interval (1/60 s until two master frames were seen). A tick keeps the one of its own
    /// interval, whatever the intervals after it.
    var effectiveTolerance: MediaTime {
        if let tolerance { return tolerance }
        guard let masterInterval, masterInterval > .zero else { return MediaTime(value: 1, timescale: 60) }
        return masterInterval.multiplied(by: 1, dividedBy: 2)
    }

    /// Takes a frame of stream `index` captured at `time`; returns the ticks it settled, oldest first.
    mutating func add(_ payload: Payload, at time: MediaTime, stream index: Int) -> [Tick] {
        guard index >= 0, index < streamCount else { return [] }
        if index == 0 {
            if let lastMasterTime, time > lastMasterTime { masterInterval = time - lastMasterTime }
            lastMasterTime = time
            ticks.append((time, payload, effectiveTolerance))
        } else {
            frames[index].append((time, payload))
            if frames[index].count > maximumKept {
                frames[index].removeFirst()
                skipped[index] += 1
            }
        }
        return settle(force: false)
    }

    /// Stream `index` lost `count` frames before its next (reported by its output or device).
    mutating func lost(_ count: Int, stream index: Int) {
        guard index > 0, index < streamCount else { return }
        skipped[index] += count
    }

    /// Settles every waiting tick with what has arrived (the end of the streams).
    mutating func finish() -> [Tick] { settle(force: true) }

    private mutating func settle(force: Bool) -> [Tick] {
        var settled: [Tick] = []
        while let tick = ticks.first {
            let waitedEnough = force || ticks.count > maximumWait
            let known = (1..<streamCount).allSatisfy { index in frames[index].contains { $0.time >= tick.time } }
            guard known || waitedEnough else { break }
            ticks.removeFirst()
            settled.append(take(tick))
        }
        return settled
    }

    private mutating func take(_ tick: (time: MediaTime, payload: Payload, tolerance: MediaTime)) -> Tick {
        let tolerance = tick.tolerance
        var result = Tick(time: tick.time, master: tick.payload, matched: [:], unmatched: [], skipped: [:])
        for index in 1..<max(1, streamCount) {
            let candidates = frames[index]
            let nearest = candidates.indices.min { Self.distance(candidates[$0].time, tick.time) < Self.distance(candidates[$1].time, tick.time) }
            if let nearest, Self.distance(candidates[nearest].time, tick.time) <= tolerance {
                result.matched[index] = candidates[nearest]
                skipped[index] += nearest
                frames[index].removeFirst(nearest + 1)
            } else {
                result.unmatched.append(index)
                // Frames too old for this tick are too old for every later one.
                let stale = candidates.prefix { $0.time < tick.time - tolerance }.count
                skipped[index] += stale
                frames[index].removeFirst(stale)
            }
            if skipped[index] > 0 {
                result.skipped[index] = skipped[index]
                skipped[index] = 0
            }
        }
        return result
    }

    private static func distance(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a > b ? a - b : b - a }
}
