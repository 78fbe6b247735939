extension TimeLapseSchedule {
    /// A stretch of each day, in local time, when a time-lapse takes shots: 06:00–20:00 for
    /// a greenhouse in daylight, 22:00–04:00 (across midnight) for the night sky.
    ///
    /// The start is inside the window and the end is not; a window whose end is before its
    /// start crosses midnight. Times are local (``TimeLapseSchedule`` reads them through the
    /// time zone, daylight saving time included).
    ///
    /// ```swift
    /// let daylight = try TimeLapseSchedule.DailyWindow(parsing: "06:00-20:00")
    /// let night = try TimeLapseSchedule.DailyWindow(from: 22 * 3600, to: 4 * 3600)
    /// print(daylight.contains(secondOfDay: 12 * 3600), night.contains(secondOfDay: 12 * 3600))   // true false
    /// ```
    public struct DailyWindow: Sendable, Hashable, CustomStringConvertible {
        /// Where the window starts, in seconds after local midnight (0..<86 400).
        public let start: Int
        /// Where it ends, in seconds after local midnight (1...86 400; 86 400 is midnight at
        /// the day's end).
        public let end: Int

        /// Seconds in a day.
        static let day = 86_400

        /// A window from `start` to `end` seconds after local midnight. Throws
        /// `.invalidArgument` for times outside the day or an empty window.
        public init(from start: Int, to end: Int) throws(CaptureError) {
            guard (0..<Self.day).contains(start), (1...Self.day).contains(end) else {
                throw .invalidArgument("a daily window's times must lie within the day (00:00 to 24:00), not \(start) s to \(end) s")
            }
            guard start != end else {
                throw .invalidArgument("the daily window \(Self.clock(start))-\(Self.clock(end)) is empty; 00:00-24:00 is the whole day")
            }
            self.start = start
            self.end = end
        }

        /// A window written `HH:MM-HH:MM` (or with seconds, `HH:MM:SS`), as `06:00-20:00` or
        /// `22:30-04:00`. Throws `.invalidArgument` for anything else.
        public init(parsing text: String) throws(CaptureError) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Self.seconds(parts[0]), let end = Self.seconds(parts[1]) else {
                throw .invalidArgument("a daily window looks like 06:00-20:00, not '\(text)'")
            }
            try self.init(from: start, to: end == 0 && start > 0 ? Self.day : end)
        }

        /// Whether a local time of day (seconds after midnight) is inside the window.
        public func contains(secondOfDay second: Int) -> Bool {
            let second = ((second % Self.day) + Self.day) % Self.day
            return start < end ? (start <= second && second < end) : (second >= start || second < end)
        }

        /// The window as `HH:MM-HH:MM` (with seconds where it has them).
        public var description: String { "\(Self.clock(start))-\(Self.clock(end))" }

        /// `HH:MM[:SS]` as seconds after midnight (24:00 allowed), or nil.
        private static func seconds(_ text: Substring) -> Int? {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(fields.count), fields.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
                  let hours = Int(fields[0]), let minutes = Int(fields[1]) else { return nil }
            let seconds = fields.count == 3 ? Int(fields[2]) : 0
            guard let seconds, (0...24).contains(hours), (0..<60).contains(minutes), (0..<60).contains(seconds) else { return nil }
            let total = hours * 3600 + minutes * 60 + seconds
            return total <= day ? total : nil
        }

        private static func clock(_ seconds: Int) -> String {
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let text = two(seconds / 3600) + ":" + two(seconds / 60 % 60)
            return seconds % 60 == 0 ? text : text + ":" + two(seconds % 60)
        }
    }
}
