import CaptureKit

/// Frames per second over the last second or so of arrivals, from a fixed ring of arrival
/// times (no allocation per frame).
struct FrameRateMeter: Sendable {
    private var arrivals = [Int64](repeating: 0, count: 64)
    private var next = 0
    private var count = 0

    /// Notes a frame arriving at `now` (`CLOCK_MONOTONIC` nanoseconds).
    mutating func record(at now: Int64) {
        arrivals[next] = now
        next = (next + 1) % arrivals.count
        count = min(count + 1, arrivals.count)
    }

    /// The rate over the arrivals of the last second before `now`; 0 when fewer than two.
    func framesPerSecond(at now: Int64) -> Double {
        var newest: Int64 = 0, oldest: Int64 = .max, recent = 0
        for index in 0..<count {
            let time = arrivals[(next - 1 - index + arrivals.count) % arrivals.count]
            guard now - time <= 1_000_000_000 else { break }
            newest = max(newest, time)
            oldest = min(oldest, time)
            recent += 1
        }
        guard recent >= 2, newest > oldest else { return 0 }
        return Double(recent - 1) * 1e9 / Double(newest - oldest)
    }
}
