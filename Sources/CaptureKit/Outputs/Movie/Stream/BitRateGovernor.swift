/// Lowers the stream's bit rate while a destination's link cannot carry it, and raises it
/// again once every link has been keeping up for a while. A value type fed with how full the
/// fullest destination's queue is (its queued media over its maximum delay), once a second;
/// it answers with the bit rate to switch to, if any.
struct BitRateGovernor {
    /// The bit rate asked for: never exceeded.
    let configured: Int
    /// The lowest it goes: a quarter of the configured rate, at least 100 kbit/s.
    var floor: Int { max(100_000, configured / 4) }
    private(set) var current: Int
    private var calmSeconds = 0

    /// How full a queue must be to count as congested, and how empty to count as calm.
    static let congested = 0.5, calm = 0.1
    /// Seconds of calm before each step up.
    static let calmBeforeRaising = 5

    init(configured: Int) {
        self.configured = configured
        current = configured
    }

    /// Takes one second's reading; the new bit rate when it changes.
    mutating func observe(fullness: Double) -> Int? {
        if fullness >= Self.congested {
            calmSeconds = 0
            let lowered = max(floor, current * 2 / 3)
            guard lowered < current else { return nil }
            current = lowered
            return lowered
        }
        guard fullness <= Self.calm else {
            calmSeconds = 0
            return nil
        }
        calmSeconds += 1
        guard calmSeconds >= Self.calmBeforeRaising, current < configured else { return nil }
        calmSeconds = 0
        current = min(configured, current * 5 / 4)
        return current
    }

    /// The application set a new rate: it is the ceiling (and the current rate) from now on.
    mutating func reset(configured rate: Int) { self = BitRateGovernor(configured: rate) }
}
