import Foundation
import Testing
@testable import CaptureKit

/// The time-lapse schedule on scripted capture times, with no session, thread or clock: which
/// frame is which slot's shot, which slots are missed, and that the grid never drifts.
@Suite("TimeLapseGrid", .excludable)
struct TimeLapseGridTests {
    /// 30 fps frames, from a session time of 1000 s.
    private let frame = MediaTime(value: 1, timescale: 30)
    private let start = MediaTime(value: 1000, timescale: 1)
    private func seconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1) }
    private func milliseconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }
    /// Session time zero is 2024-06-01 00:00:00 UTC minus 1000 s, so `start` is that midnight.
    private let midnightJune1: Int64 = 1_717_200_000
    private func wallClock(_ zone: String = "UTC", unixAtStart: Int64? = nil) -> SessionWallClock {
        SessionWallClock(unixNanosecondsAtSessionZero: ((unixAtStart ?? midnightJune1) - 1000) * 1_000_000_000,
                         timeZone: TimeZone(identifier: zone)!)
    }
    private func grid(_ schedule: TimeLapseSchedule, clock: SessionWallClock? = nil, frameDuration: MediaTime? = nil) -> TimeLapseGrid {
        TimeLapseGrid(schedule: schedule, wallClock: clock ?? wallClock(), tolerance: schedule.tolerance(forFrameDuration: frameDuration ?? frame))
    }

    /// Feeds frames and collects what they decided.
    private func run(_ grid: inout TimeLapseGrid, frames: [MediaTime]) -> (shots: [(TimeLapseGrid.Slot, MediaTime)], missed: [TimeLapseGrid.Missed]) {
        var shots: [(TimeLapseGrid.Slot, MediaTime)] = []
        var missed: [TimeLapseGrid.Missed] = []
        for time in frames {
            let decision = grid.decide(frameAt: time)
            if let miss = decision.missed { missed.append(miss) }
            if let shot = decision.shot { shots.append((shot, time)) }
        }
        return (shots, missed)
    }

    @Test func everySlotIsTheFirstFrameAtOrAfterIt() {
        var grid = grid(TimeLapseSchedule(every: seconds(1)))
        let frames = (0..<301).map { start + frame * Int64($0) }
        let (shots, missed) = run(&grid, frames: frames)
        #expect(missed.isEmpty)
        #expect(shots.count == 11)
        for (k, (slot, captured)) in shots.enumerated() {
            #expect(slot.index == k && slot.position == k)
            #expect(slot.time == start + seconds(Int64(k)))
            #expect(captured == start + frame * Int64(30 * k), "frame 30k is captured exactly at slot k")
        }
    }

    @Test func aFrameBetweenSlotsWaitsAndALateButTolerableOneIsTaken() {
        var grid = grid(TimeLapseSchedule(every: seconds(10)))   // tolerance: 1 s
        #expect(grid.tolerance == seconds(1))
        #expect(grid.decide(frameAt: start).shot?.index == 0)
        #expect(grid.decide(frameAt: start + seconds(5)) == .init())
        // Slot 1 (1010 s): the first frame after it comes 0.9 s late — still slot 1's.
        let decision = grid.decide(frameAt: start + milliseconds(10_900))
        #expect(decision.missed == nil)
        #expect(decision.shot == .init(index: 1, time: start + seconds(10), position: 1))
        #expect(grid.decide(frameAt: start + milliseconds(10_950)) == .init(), "one shot per slot")
    }

    @Test func aLateSlotIsSkippedAndCountedAndTheNextStaysOnTheGrid() {
        var grid = grid(TimeLapseSchedule(every: seconds(10)))
        _ = grid.decide(frameAt: start)
        // Nothing from 1009 s to 1011.5 s: slot 1 (1010 s, tolerance to 1011 s) is missed.
        let late = grid.decide(frameAt: start + milliseconds(11_500))
        #expect(late.missed == .init(slots: 1..<2, count: 1))
        #expect(late.shot == nil, "the late frame is no one's shot")
        let next = grid.decide(frameAt: start + seconds(20))
        #expect(next.shot == .init(index: 2, time: start + seconds(20), position: 2), "slot 2 is where the grid puts it, not 10 s after the late frame")
    }

    @Test func aLongStallMissesEverySlotInItAndTheFrameAfterIsOnTimeForItsOwn() {
        var grid = grid(TimeLapseSchedule(every: seconds(1)))   // tolerance: 0.5 s
        _ = grid.decide(frameAt: start)
        // A stall until 1007.2 s: slots 1…6 missed, slot 7 (1007 s) taken 0.2 s late.
        let decision = grid.decide(frameAt: start + milliseconds(7_200))
        #expect(decision.missed == .init(slots: 1..<7, count: 6))
        #expect(decision.shot == .init(index: 7, time: start + seconds(7), position: 7))
        // A stall of 10 million slots is arithmetic, not a loop per slot.
        let far = grid.decide(frameAt: start + seconds(10_000_000) + milliseconds(600))
        #expect(far.missed == .init(slots: 8..<10_000_001, count: 9_999_993))
        #expect(far.shot == nil)
        #expect(grid.decide(frameAt: start + seconds(10_000_001)).shot?.index == 10_000_001)
    }

    /// The acceptance test on scripted times: 30 fps frames with the device stalled at random
    /// (seeded), until 100 shots are taken. Every slot is taken or missed exactly once, in
    /// order; a taken shot is the first frame at or after its slot and within the tolerance; a
    /// missed slot had no frame within its tolerance; and shot k's slot is exactly
    /// start + k × interval.
    @Test func hundredShotsWithRandomStallsNeverDrift() {
        let interval = milliseconds(500)
        var grid = grid(TimeLapseSchedule(every: interval))
        let tolerance = grid.tolerance
        #expect(tolerance == milliseconds(250))
        var random = SeededGenerator(seed: 19)
        var frames: [MediaTime] = []
        var index: Int64 = 0
        while frames.count < 4_000 {
            frames.append(start + frame * index)
            // One frame in 20 stalls the device for 0–1.2 s: the frames it would have captured meanwhile are lost.
            index += random.next() % 20 == 0 ? 1 + Int64(random.next() % 36) : 1
        }
        var shots: [(TimeLapseGrid.Slot, MediaTime)] = []
        var missedSlots: [Int] = []
        for time in frames where shots.count < 100 {
            let decision = grid.decide(frameAt: time)
            if let miss = decision.missed { missedSlots += Array(miss.slots) }
            if let shot = decision.shot { shots.append((shot, time)) }
        }
        #expect(shots.count == 100)
        #expect(missedSlots.count >= 5, "the stalls made some slots late (\(missedSlots.count))")
        let decided = (shots.map(\.0.index) + missedSlots).sorted()
        #expect(decided == Array(0..<decided.count), "every slot decided exactly once")
        /// The first scripted frame at or after `time` (binary search: the frames are in order).
        func firstFrame(atOrAfter time: MediaTime) -> MediaTime? {
            var range = 0..<frames.count
            while !range.isEmpty {
                let middle = range.lowerBound + range.count / 2
                if frames[middle] < time { range = (middle + 1)..<range.upperBound } else { range = range.lowerBound..<middle }
            }
            return range.lowerBound < frames.count ? frames[range.lowerBound] : nil
        }
        for (slot, captured) in shots {
            #expect(slot.time == start + interval * Int64(slot.index), "no drift: slot \(slot.index)")
            #expect(slot.position == slot.index)
            #expect(captured >= slot.time && captured <= slot.time + tolerance)
            #expect(firstFrame(atOrAfter: slot.time) == captured, "the first frame at or after the slot")
        }
        for slot in missedSlots {
            let due = start + interval * Int64(slot)
            #expect(firstFrame(atOrAfter: due).map { $0 > due + tolerance } == true, "slot \(slot) really had no frame in time")
        }
    }

    @Test func wallClockAlignmentStartsAtTheNextWholeMultipleOfLocalTime() {
        // The first frame at 00:00:03.5 UTC: every 10 s → the first slot at 00:00:10.
        var grid = grid(TimeLapseSchedule(every: seconds(10), alignedToWallClock: true))
        #expect(grid.decide(frameAt: start + milliseconds(3_500)) == .init(), "before the first slot")
        #expect(grid.origin == start + seconds(10))
        #expect(grid.decide(frameAt: start + seconds(10)).shot?.time == start + seconds(10))
        // Hourly in India (UTC+05:30): 00:10 UTC is 05:40 local, so the first slot is 06:00
        // local, 00:30 UTC — not 01:00 UTC.
        var india = self.grid(TimeLapseSchedule(every: seconds(3600), alignedToWallClock: true), clock: wallClock("Asia/Kolkata"))
        _ = india.decide(frameAt: start + seconds(600))
        #expect(india.origin == start + seconds(1800))
        // A frame exactly on a multiple is its own slot.
        var exact = self.grid(TimeLapseSchedule(every: seconds(60), alignedToWallClock: true))
        #expect(exact.decide(frameAt: start + seconds(120)).shot?.time == start + seconds(120))
    }

    @Test func dailyWindowsTakeShotsOnlyInsideAndCountNothingOutside() throws {
        var schedule = TimeLapseSchedule(every: seconds(3600), alignedToWallClock: true)
        schedule.windows = [try .init(parsing: "06:00-20:00")]
        var grid = grid(schedule)
        // Three days of a frame a minute, from midnight.
        let frames = (0..<(3 * 24 * 60)).map { start + seconds(60 * Int64($0)) }
        let (shots, missed) = run(&grid, frames: frames)
        #expect(missed.isEmpty, "night slots are not missed shots")
        #expect(shots.count == 3 * 14)
        for (n, (slot, _)) in shots.enumerated() {
            let hour = slot.index % 24
            #expect((6..<20).contains(hour))
            #expect(slot.position == n, "positions run on across the night: the movie has no gap")
        }
    }

    @Test func aWindowAcrossMidnightAndAStallThroughTheNight() throws {
        var schedule = TimeLapseSchedule(every: seconds(3600))
        schedule.windows = [try .init(parsing: "22:00-02:00"), try .init(parsing: "12:00-13:00")]
        var grid = grid(schedule)
        // One frame every 10 minutes for a day, from midnight: 00, 01, 12, 22, 23.
        let (shots, _) = run(&grid, frames: (0..<144).map { start + seconds(600 * Int64($0)) })
        #expect(shots.map(\.0.index) == [0, 1, 12, 22, 23])
        // The camera is away from 23:50 to 23:10 the next day: slots 24 (00:00), 25 (01:00),
        // 36 (12:00), 46 (22:00) and 47 (23:00) were inside the windows and are missed; the 19
        // others are not counted.
        let decision = grid.decide(frameAt: start + seconds(24 * 3600 + 23 * 3600 + 600))
        #expect(decision.missed == .init(slots: 24..<48, count: 5))
        #expect(decision.shot == nil)
    }

    @Test func windowsFollowDaylightSavingTime() throws {
        // Berlin on 2024-03-31 goes from UTC+1 to UTC+2 at 02:00 local. Session time 1000 s is
        // 2024-03-30 00:00 local (23:00 UTC the day before).
        let clock = wallClock("Europe/Berlin", unixAtStart: 1_711_753_200)
        var schedule = TimeLapseSchedule(every: seconds(3600), alignedToWallClock: true)
        schedule.windows = [try .init(parsing: "06:00-07:00")]
        var grid = grid(schedule, clock: clock)
        let (shots, missed) = run(&grid, frames: (0..<(3 * 24 * 6)).map { start + seconds(600 * Int64($0)) })
        #expect(missed.isEmpty)
        #expect(shots.count == 3, "one 06:00 shot a day, also on the 23-hour day")
        for (slot, _) in shots {
            let local = try #require(clock.localNanoseconds(of: slot.time)) / 1_000_000_000
            #expect(local % 86_400 == 6 * 3600, "06:00 local")
        }
    }

    @Test func theToleranceIsTwoFramesAtLeastOneSecondAndAtMostHalfTheInterval() throws {
        #expect(TimeLapseSchedule(every: seconds(10)).tolerance(forFrameDuration: frame) == seconds(1))
        #expect(TimeLapseSchedule(every: seconds(10)).tolerance(forFrameDuration: seconds(2)) == seconds(4))
        #expect(TimeLapseSchedule(every: seconds(10)).tolerance(forFrameDuration: seconds(4)) == seconds(5))
        #expect(TimeLapseSchedule(every: milliseconds(100)).tolerance(forFrameDuration: frame) == milliseconds(50))
        #expect(TimeLapseSchedule(every: seconds(10), tolerance: milliseconds(100)).tolerance(forFrameDuration: frame) == milliseconds(100))
        try TimeLapseSchedule(every: seconds(10), tolerance: .zero).validate()
        #expect(throws: CaptureError.self) { try TimeLapseSchedule(every: seconds(10), tolerance: seconds(10)).validate() }
        #expect(throws: CaptureError.self) { try TimeLapseSchedule(every: .zero).validate() }
        #expect(throws: CaptureError.self) { try TimeLapseSchedule(every: .invalid).validate() }
    }

    @Test func dailyWindowsParseAndContain() throws {
        let day = try TimeLapseSchedule.DailyWindow(parsing: "06:00-20:00")
        #expect(day.start == 6 * 3600 && day.end == 20 * 3600 && day.description == "06:00-20:00")
        #expect(day.contains(secondOfDay: 6 * 3600) && !day.contains(secondOfDay: 20 * 3600) && !day.contains(secondOfDay: 3600))
        let night = try TimeLapseSchedule.DailyWindow(parsing: "22:30-04:00")
        #expect(night.contains(secondOfDay: 23 * 3600) && night.contains(secondOfDay: 0) && !night.contains(secondOfDay: 12 * 3600))
        #expect(try TimeLapseSchedule.DailyWindow(parsing: "00:00-24:00").contains(secondOfDay: 86_399))
        #expect(try TimeLapseSchedule.DailyWindow(parsing: "18:00-00:00").end == 86_400)
        #expect(try TimeLapseSchedule.DailyWindow(parsing: "06:00:30-06:01").description == "06:00:30-06:01")
        for bad in ["", "6:00-20:00", "06:00", "06:00-25:00", "06:60-07:00", "07:00-07:00", "a:b-c:d", "06:00-20:00-21:00"] {
            #expect(throws: CaptureError.self, "'\(bad)'") { try TimeLapseSchedule.DailyWindow(parsing: bad) }
        }
    }

    @Test func aTimeLapseWithADurationEndsAfterItsLastSlot() {
        let schedule = TimeLapseSchedule(every: seconds(1))
        #expect(schedule.slotCount(in: seconds(10)) == 10)
        #expect(schedule.slotCount(in: milliseconds(10_001)) == 11)
        #expect(schedule.slotCount(in: milliseconds(1)) == 1)
        #expect(TimeLapseSchedule(every: milliseconds(300)).slotCount(in: seconds(3)) == 10)
        var grid = TimeLapseGrid(schedule: schedule, wallClock: wallClock(), tolerance: milliseconds(500), endSlot: 3)
        _ = grid.decide(frameAt: start)
        #expect(grid.decide(frameAt: start + seconds(1)).shot?.index == 1)
        // Slot 2 is late, and the stall runs past the end: only slot 2 is missed.
        let last = grid.decide(frameAt: start + seconds(9))
        #expect(last.missed == .init(slots: 2..<3, count: 1))
        #expect(last.shot == nil)
        #expect(grid.isFinished)
        #expect(grid.decide(frameAt: start + seconds(10)) == .init())
    }

    @Test func theSchedulesSlotTimeIsExact() {
        let schedule = TimeLapseSchedule(every: MediaTime(value: 1, timescale: 3))
        let origin = MediaTime(value: 123_456_789, timescale: 1_000_000_000)
        #expect(schedule.slotTime(300_000, origin: origin) == origin + seconds(100_000))
    }
}
