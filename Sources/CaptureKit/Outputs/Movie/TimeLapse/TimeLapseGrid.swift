/// A ``TimeLapseSchedule`` laid on the session clock: decides, frame by frame, which frame is
/// which slot's shot and which slots were missed. A value with no clock, thread or device
/// behind it — it is given each frame's capture time — so its arithmetic is tested alone.
///
/// Slot *k* is due at exactly `origin + k × interval` (``TimeLapseSchedule/slotTime(_:origin:)``):
/// the origin is fixed by the first frame and never moves, so no shot, late or missed, shifts
/// the ones after it. Slots outside the daily windows are passed over without a count; the
/// slots inside are numbered in order (their ``Slot/position``: the frame a time-lapse movie
/// gives them), whether they are taken or missed, so a movie's frames stay on the schedule too.
struct TimeLapseGrid: Sendable {
    /// One slot of the grid.
    struct Slot: Sendable, Equatable {
        /// Its index: due at `origin + index × interval`.
        var index: Int
        /// When it is due, on the session clock.
        var time: MediaTime
        /// How many slots inside the windows came before it (its frame in a movie).
        var position: Int
    }

    /// Slots passed without a shot, all of them late by the time a frame came.
    struct Missed: Sendable, Equatable {
        /// The slots passed, in order (the ones outside the windows among them are not missed).
        var slots: Range<Int>
        /// How many of them were inside the windows: the missed shots.
        var count: Int
    }

    /// What one frame decided.
    struct Decision: Sendable, Equatable {
        /// Slots that were passed late, before the frame's own (if any).
        var missed: Missed?
        /// The slot this frame is the shot of.
        var shot: Slot?
    }

    let schedule: TimeLapseSchedule
    let wallClock: SessionWallClock
    let tolerance: MediaTime
    /// The first slot not in the time-lapse (its duration ended), if it ends.
    let endSlot: Int?
    /// Slot 0's time; nil until the first frame.
    private(set) var origin: MediaTime?
    /// The next slot to decide.
    private(set) var nextSlot = 0
    /// The next slot's ``Slot/position`` if it is inside the windows.
    private(set) var nextPosition = 0

    /// A grid for `schedule`, reading windows and the wall-clock anchor through `wallClock`,
    /// with `tolerance` (``TimeLapseSchedule/tolerance(forFrameDuration:)``), ending before
    /// slot `endSlot` when given.
    init(schedule: TimeLapseSchedule, wallClock: SessionWallClock, tolerance: MediaTime, endSlot: Int? = nil) {
        self.schedule = schedule
        self.wallClock = wallClock
        self.tolerance = tolerance
        self.endSlot = endSlot
    }

    /// Whether every slot of a time-lapse with an end has been decided.
    var isFinished: Bool { endSlot.map { nextSlot >= $0 } ?? false }

    /// Decides a frame captured at `time`. Frames come in capture order; each is the shot of
    /// at most one slot (the tolerance is less than the interval).
    mutating func decide(frameAt time: MediaTime) -> Decision {
        let origin = self.origin ?? start(at: time)
        var decision = Decision()
        guard !isFinished, time >= schedule.slotTime(nextSlot, origin: origin) else { return decision }
        // Slots whose tolerance ended before this frame were missed.
        let firstOnTime = min(firstSlot(notLateAt: time, origin: origin), endSlot ?? .max)
        if firstOnTime > nextSlot {
            let passed = nextSlot..<firstOnTime
            let inside = countInsideWindows(passed, origin: origin)
            nextPosition += inside
            nextSlot = firstOnTime
            decision.missed = Missed(slots: passed, count: inside)
        }
        let due = schedule.slotTime(nextSlot, origin: origin)
        if !isFinished, time >= due {
            // On time (the late ones were passed above): this frame is the slot's, if it counts.
            if isInsideWindows(due) {
                decision.shot = Slot(index: nextSlot, time: due, position: nextPosition)
                nextPosition += 1
            }
            nextSlot += 1
        }
        return decision
    }

    /// Fixes the origin at the first frame: the frame itself, or the next whole multiple of
    /// the interval in local time.
    private mutating func start(at time: MediaTime) -> MediaTime {
        var origin = time
        if schedule.alignsToWallClock, let local = wallClock.localNanoseconds(of: time), let step = schedule.interval.nanoseconds, step > 0 {
            let remainder = ((local % step) + step) % step
            let aligned = remainder == 0 ? local : local - remainder + step
            origin = wallClock.sessionTime(ofLocalNanoseconds: aligned, near: time) ?? time
        }
        self.origin = origin
        return origin
    }

    /// The first slot, from ``nextSlot`` on, whose tolerance has not ended at `time`.
    private func firstSlot(notLateAt time: MediaTime, origin: MediaTime) -> Int {
        let late = { (slot: Int) in schedule.slotTime(slot, origin: origin) + tolerance < time }
        guard late(nextSlot) else { return nextSlot }
        // An estimate in floating point, then corrected by exact comparisons.
        let estimate = ((time - tolerance - origin).seconds / schedule.interval.seconds).rounded(.down)
        var slot = max(nextSlot + 1, estimate.isFinite ? Int(min(estimate, Double(Int.max / 2))) : nextSlot + 1)
        while slot > nextSlot + 1, !late(slot - 1) { slot -= 1 }
        while late(slot) { slot += 1 }
        return slot
    }

    /// Whether a slot due at `time` lies inside the daily windows (always, without windows).
    func isInsideWindows(_ time: MediaTime) -> Bool {
        guard !schedule.windows.isEmpty else { return true }
        guard let local = wallClock.localNanoseconds(of: time) else { return false }
        // Whole seconds, rounded down (before 1970 too); the window takes them modulo a day.
        let day = Int64(TimeLapseSchedule.DailyWindow.day)
        let second = Int((local >= 0 ? local / 1_000_000_000 : (local + 1) / 1_000_000_000 - 1) % day)
        return schedule.windows.contains { $0.contains(secondOfDay: second) }
    }

    /// How many of `slots` lie inside the windows. One check per slot with windows: a stall
    /// of a day at a 1 s interval costs 86 400 checks, once.
    private func countInsideWindows(_ slots: Range<Int>, origin: MediaTime) -> Int {
        guard !schedule.windows.isEmpty else { return slots.count }
        return slots.reduce(0) { $0 + (isInsideWindows(schedule.slotTime($1, origin: origin)) ? 1 : 0) }
    }
}
