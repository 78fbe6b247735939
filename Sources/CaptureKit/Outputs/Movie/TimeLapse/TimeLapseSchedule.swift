/// When a time-lapse takes its shots: one every ``interval`` on the session clock, on a grid
/// that never drifts, optionally anchored to the wall clock and limited to daily windows.
///
/// Shot *k* is due at `origin + k × interval`, where the origin is the first frame's capture
/// time (or, with ``alignsToWallClock``, the next local time that is a whole multiple of the
/// interval: every 10 s at :00, :10, :20 …). Each slot is served by the first frame captured at
/// or after it; when no frame is captured within ``tolerance`` of the slot (the device stalled,
/// or the output was still busy with the previous shot) the slot is skipped and counted as
/// missed, and the next slot stays where the grid puts it — a late shot never pushes the ones
/// after it. Slots outside every ``windows`` entry are neither taken nor missed.
///
/// The grid is laid on the session clock (`CLOCK_MONOTONIC`, the clock of every
/// `presentationTimeStamp`), so setting the date does not move it; daily windows and the
/// wall-clock anchor are read through the wall clock as it stood when the time-lapse started,
/// with the time zone's daylight saving time.
///
/// ```swift
/// var schedule = TimeLapseSchedule(every: MediaTime(value: 10, timescale: 1), alignedToWallClock: true)
/// schedule.windows = [try TimeLapseSchedule.DailyWindow(parsing: "06:00-20:00")]
/// print(schedule.slotTime(3, origin: MediaTime(value: 100, timescale: 1)).seconds)   // 130.0
/// ```
public struct TimeLapseSchedule: Sendable, Hashable {
    /// The time between two shots (at least 1 ms).
    public var interval: MediaTime
    /// Whether the first slot is the next whole multiple of ``interval`` in local time (every
    /// 10 minutes at :00, :10 …; every 24 hours at midnight) instead of the first frame.
    public var alignsToWallClock: Bool
    /// The times of day shots are taken, in local time; empty (the default) for all day.
    public var windows: [DailyWindow]
    /// How late a frame may be captured after its slot and still be the slot's shot;
    /// `.invalid` (the default) for the automatic tolerance (``tolerance(forFrameDuration:)``).
    /// Must be less than ``interval``, so one frame can never serve two slots.
    public var tolerance: MediaTime

    /// A schedule of one shot every `interval`.
    public init(every interval: MediaTime, alignedToWallClock: Bool = false, windows: [DailyWindow] = [],
                tolerance: MediaTime = .invalid) {
        self.interval = interval
        self.alignsToWallClock = alignedToWallClock
        self.windows = windows
        self.tolerance = tolerance
    }

    /// The time of slot `slot` on a grid starting at `origin`: exactly `origin + slot × interval`.
    public func slotTime(_ slot: Int, origin: MediaTime) -> MediaTime {
        origin + interval * Int64(slot)
    }

    /// How many slots a time-lapse lasting `duration` has: those due before `origin + duration`
    /// (10 s every 1 s: slots 0…9, 10 shots).
    public func slotCount(in duration: MediaTime) -> Int {
        guard duration.isNumeric, duration > .zero, interval.isNumeric, interval > .zero else { return 0 }
        let estimate = (duration.seconds / interval.seconds).rounded(.up)
        var count = max(1, estimate.isFinite ? Int(min(estimate, Double(Int.max / 2))) : 1)
        while count > 1, interval * Int64(count - 1) >= duration { count -= 1 }
        while interval * Int64(count) < duration { count += 1 }
        return count
    }

    /// The tolerance used for frames of `frameDuration`: ``tolerance`` when set, else twice
    /// the frame duration but at least 1 s — a camera's first frame after a slot comes within
    /// one frame duration, the second allows one dropped frame, and the second's floor keeps a
    /// camera that slows down in the dark (longer exposures) from missing slots — and never
    /// more than half the interval, so a frame taken for a slot is always nearer its own slot
    /// than the next one.
    public func tolerance(forFrameDuration frameDuration: MediaTime) -> MediaTime {
        if tolerance.isNumeric { return tolerance }
        let second = MediaTime(value: 1, timescale: 1)
        let frames = frameDuration.isNumeric && frameDuration > .zero ? frameDuration * 2 : second
        return MediaTime.minimum(half(of: interval), MediaTime.maximum(second, frames))
    }

    /// Exactly half of `time` (in twice its timescale where that fits).
    private func half(of time: MediaTime) -> MediaTime {
        guard time.timescale <= Int32.max / 2 else { return time.multiplied(by: 1, dividedBy: 2) }
        return MediaTime(value: time.value, timescale: time.timescale * 2)
    }

    /// Checks the schedule: an interval of at least 1 ms, a tolerance from 0 to less than the
    /// interval. Throws `.invalidArgument` naming what is wrong.
    public func validate() throws(CaptureError) {
        guard interval.isNumeric, interval >= MediaTime(value: 1, timescale: 1000) else {
            throw .invalidArgument("a time-lapse interval must be at least 1 ms, not \(interval.isNumeric ? "\(interval.seconds) s" : "\(interval)")")
        }
        if tolerance.isNumeric, tolerance < .zero || tolerance >= interval {
            throw .invalidArgument("a time-lapse tolerance must be from 0 to less than the interval (\(interval.seconds) s), not \(tolerance.seconds) s")
        }
    }
}
