import Foundation
import Glibc

/// Where the session clock (`CLOCK_MONOTONIC`) stands against the wall clock
/// (`CLOCK_REALTIME`) and a time zone: the one conversion from a capture time to a date, a
/// local time of day, or an EXIF date.
///
/// A value, read once (``current(timeZone:)``) and then kept: a schedule laid on the session
/// clock must not move when the wall clock is stepped (NTP, a user setting the date), and a
/// test gives it the offset and zone it wants instead of the machine's.
package struct SessionWallClock: Sendable, Hashable {
    /// Unix time, in nanoseconds, at session time zero.
    package var unixNanosecondsAtSessionZero: Int64
    /// The zone local times of day are counted in (daylight saving time included).
    package var timeZone: TimeZone

    package init(unixNanosecondsAtSessionZero: Int64, timeZone: TimeZone) {
        self.unixNanosecondsAtSessionZero = unixNanosecondsAtSessionZero
        self.timeZone = timeZone
    }

    /// The machine's clocks as they stand now: the current offset between `CLOCK_REALTIME` and
    /// `CLOCK_MONOTONIC`.
    package static func current(timeZone: TimeZone = .current) -> SessionWallClock {
        var realtime = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        let monotonic = MonotonicClock.nanoseconds()
        let unix = Int64(realtime.tv_sec) * 1_000_000_000 + Int64(realtime.tv_nsec)
        return SessionWallClock(unixNanosecondsAtSessionZero: unix - monotonic, timeZone: timeZone)
    }

    /// Unix time in nanoseconds of a session time; nil for special values and overflow.
    package func unixNanoseconds(of time: MediaTime) -> Int64? {
        guard let nanoseconds = time.nanoseconds else { return nil }
        let (sum, overflow) = unixNanosecondsAtSessionZero.addingReportingOverflow(nanoseconds)
        return overflow ? nil : sum
    }

    /// The wall-clock instant of a session time.
    package func date(of time: MediaTime) -> Date? {
        unixNanoseconds(of: time).map { Date(timeIntervalSince1970: Double($0) / 1e9) }
    }

    /// Local time in nanoseconds since 1970-01-01 00:00 *local*: Unix time plus the zone's
    /// offset at that instant, so whole local days are multiples of 86 400 s.
    package func localNanoseconds(of time: MediaTime) -> Int64? {
        guard let unix = unixNanoseconds(of: time) else { return nil }
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(unix) / 1e9))
        return unix + Int64(offset) * 1_000_000_000
    }

    /// The session time at local time `local` (nanoseconds as ``localNanoseconds(of:)``),
    /// counted with the zone's offset at `reference` (a nearby session time).
    package func sessionTime(ofLocalNanoseconds local: Int64, near reference: MediaTime) -> MediaTime? {
        guard let referenceLocal = localNanoseconds(of: reference), let referenceNanoseconds = reference.nanoseconds else { return nil }
        return MediaTime(value: referenceNanoseconds + (local - referenceLocal), timescale: 1_000_000_000)
    }
}
