/// A rational time value: `value / timescale` seconds, like Core Media's `CMTime`.
///
/// Besides numeric times there are four special values with CMTime's semantics:
/// ``invalid``, ``indefinite``, ``positiveInfinity`` and ``negativeInfinity``.
/// Arithmetic is exact while the result fits: sums use the least common multiple of the
/// two timescales and fall back to the larger timescale (marking ``Flags/hasBeenRounded``)
/// only when that would overflow.
///
/// ```swift
/// let frame = MediaTime(value: 1, timescale: 30)
/// let t = frame * 45                     // 45/30 s
/// t.seconds                              // 1.5
/// t.convertScale(1000).value             // 1500
/// ```
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numerator.
    public var value: Int64
    /// Units per second: the denominator. Always positive for a valid time.
    public var timescale: Int32
    /// Validity and special-value flags.
    public var flags: Flags

    /// The flags of a time, as `CMTimeFlags`.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The time is valid. Every other flag requires this one.
        public static let valid = Flags(rawValue: 1 << 0)
        /// The time was rounded at some step of its computation.
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// +∞.
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// −∞.
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// Unknown (for example the duration of a live stream).
        public static let indefinite = Flags(rawValue: 1 << 4)
    }

    /// How ``convertScale(_:method:)`` rounds, as `CMTimeRoundingMethod`.
    public enum RoundingMethod: Sendable {
        /// Round half away from zero (the default).
        case roundHalfAwayFromZero
        /// Truncate: round toward zero.
        case roundTowardZero
        /// Round away from zero.
        case roundAwayFromZero
        /// Round up (ceiling).
        case roundTowardPositiveInfinity
        /// Round down (floor).
        case roundTowardNegativeInfinity
    }

    /// A time of `value / timescale` seconds. A non-positive timescale gives ``invalid``.
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.init(value: value, timescale: timescale, flags: .valid)
        } else {
            self.init(value: 0, timescale: 0, flags: [])
        }
    }

    /// The time closest to `seconds` in `preferredTimescale` units. NaN gives ``invalid``,
    /// infinities the matching infinite time.
    public init(seconds: Double, preferredTimescale: Int32) {
        if seconds.isNaN || preferredTimescale <= 0 {
            self = .invalid
        } else if seconds == .infinity {
            self = .positiveInfinity
        } else if seconds == -.infinity {
            self = .negativeInfinity
        } else {
            let scaled = (seconds * Double(preferredTimescale)).rounded()
            if scaled >= 9.2e18 {
                self = .positiveInfinity
            } else if scaled <= -9.2e18 {
                self = .negativeInfinity
            } else {
                self.init(value: Int64(scaled), timescale: preferredTimescale)
                if scaled != seconds * Double(preferredTimescale) { flags.insert(.hasBeenRounded) }
            }
        }
    }

    private init(value: Int64, timescale: Int32, flags: Flags) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
    }

    /// 0 s.
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// Not a time. Compares greater than every other time and equal to itself.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [])
    /// An unknown time.
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite])
    /// +∞.
    public static let positiveInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity])
    /// −∞.
    public static let negativeInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity])

    /// Whether the time is valid (numeric or one of the valid special values).
    public var isValid: Bool { flags.contains(.valid) }
    /// Whether the time is an ordinary finite number of seconds.
    public var isNumeric: Bool {
        flags.contains(.valid) && flags.isDisjoint(with: [.indefinite, .positiveInfinity, .negativeInfinity])
    }
    /// Whether the time is ``indefinite``.
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// Whether the time is ``positiveInfinity``.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// Whether the time is ``negativeInfinity``.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }

    /// The time in seconds; NaN for invalid and indefinite times, ±∞ for the infinities.
    public var seconds: Double {
        if isNumeric { return Double(value) / Double(timescale) }
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        return .nan
    }

    /// The same time in `newTimescale` units, rounded with `method`.
    /// Special values are returned unchanged; an out-of-range result becomes an infinity.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .roundHalfAwayFromZero) -> MediaTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        guard let (q, exact) = Self.mulDiv(value, Int64(newTimescale), Int64(timescale), method) else {
            return value < 0 ? .negativeInfinity : .positiveInfinity
        }
        var result = MediaTime(value: q, timescale: newTimescale)
        if !exact || flags.contains(.hasBeenRounded) { result.flags.insert(.hasBeenRounded) }
        return result
    }

    /// The nanoseconds of a numeric time (rounded), or nil for special values and overflow.
    public var nanoseconds: Int64? {
        guard isNumeric else { return nil }
        return Self.mulDiv(value, 1_000_000_000, Int64(timescale), .roundHalfAwayFromZero)?.0
    }

    public var description: String {
        if !isValid { return "invalid" }
        if isIndefinite { return "indefinite" }
        if isPositiveInfinity { return "+inf" }
        if isNegativeInfinity { return "-inf" }
        return "\(value)/\(timescale) (\(seconds) s)"
    }

    // MARK: Arithmetic

    /// The sum, as `CMTimeAdd`: invalid if either is invalid or for +∞ + −∞.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if let special = specialSum(lhs, rhs) { return special }
        return numericSum(lhs, rhs)
    }

    /// The difference, as `CMTimeSubtract`.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        lhs + (-rhs)
    }

    /// The negation: ±∞ swap, other special values stay.
    public static prefix func - (time: MediaTime) -> MediaTime {
        if time.isPositiveInfinity { return .negativeInfinity }
        if time.isNegativeInfinity { return .positiveInfinity }
        guard time.isNumeric else { return time }
        if time.value == .min { return .positiveInfinity }
        var negated = time
        negated.value = -time.value
        return negated
    }

    /// The time multiplied by an integer, as `CMTimeMultiply`.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        if lhs.isPositiveInfinity || lhs.isNegativeInfinity {
            if rhs == 0 { return .invalid }
            return (rhs > 0) == lhs.isPositiveInfinity ? .positiveInfinity : .negativeInfinity
        }
        guard lhs.isNumeric else { return lhs }
        let (product, overflow) = lhs.value.multipliedReportingOverflow(by: rhs)
        if overflow { return (lhs.value < 0) != (rhs < 0) ? .negativeInfinity : .positiveInfinity }
        var result = lhs
        result.value = product
        return result
    }

    /// The time multiplied by `multiplier / divisor`, exact where it fits (`CMTimeMultiplyByRatio`).
    public func multiplied(by multiplier: Int32, dividedBy divisor: Int32) -> MediaTime {
        guard divisor != 0 else { return .invalid }
        guard isNumeric else { return self * Int64(multiplier.signum() * divisor.signum()) }
        let sign: Int64 = divisor < 0 ? -1 : 1
        guard let (q, exact) = Self.mulDiv(value, Int64(multiplier) * sign, Int64(divisor.magnitude), .roundHalfAwayFromZero) else {
            return (value < 0) != ((multiplier < 0) != (divisor < 0)) ? .negativeInfinity : .positiveInfinity
        }
        var result = MediaTime(value: q, timescale: timescale)
        if !exact || flags.contains(.hasBeenRounded) { result.flags.insert(.hasBeenRounded) }
        return result
    }

    /// Adds in place.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Subtracts in place.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    // MARK: Comparison (CMTimeCompare's total order)

    private var orderClass: Int {
        if !isValid { return 4 }
        if isPositiveInfinity { return 3 }
        if isIndefinite { return 2 }
        if isNegativeInfinity { return 0 }
        return 1
    }

    /// -1, 0 or 1, as `CMTimeCompare`. Invalid times are equal to each other and greater than
    /// everything; then +∞, then indefinite; −∞ is less than everything.
    public static func compare(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        let (a, b) = (lhs.orderClass, rhs.orderClass)
        if a != b { return a < b ? -1 : 1 }
        guard a == 1 else { return 0 }
        if lhs.timescale == rhs.timescale { return lhs.value == rhs.value ? 0 : (lhs.value < rhs.value ? -1 : 1) }
        // Compare lhs.value * rhs.timescale with rhs.value * lhs.timescale without overflow.
        let l = lhs.value.multipliedFullWidth(by: Int64(rhs.timescale))
        let r = rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
        if l.high != r.high { return l.high < r.high ? -1 : 1 }
        if l.low != r.low { return l.low < r.low ? -1 : 1 }
        return 0
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(orderClass)
        guard isNumeric else { return }
        let g = Self.gcd(value.magnitude, UInt64(timescale))
        hasher.combine(value / Int64(g))
        hasher.combine(Int64(timescale) / Int64(g))
    }

    /// The smaller of two times (CMTimeMinimum).
    public static func minimum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a <= b ? a : b }
    /// The larger of two times (CMTimeMaximum).
    public static func maximum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a >= b ? a : b }

    // MARK: Helpers

    private static func specialSum(_ a: MediaTime, _ b: MediaTime) -> MediaTime? {
        if !a.isValid || !b.isValid { return .invalid }
        if (a.isPositiveInfinity && b.isNegativeInfinity) || (a.isNegativeInfinity && b.isPositiveInfinity) { return .invalid }
        if a.isPositiveInfinity || b.isPositiveInfinity { return .positiveInfinity }
        if a.isNegativeInfinity || b.isNegativeInfinity { return .negativeInfinity }
        if a.isIndefinite || b.isIndefinite { return .indefinite }
        return nil
    }

    private static func numericSum(_ a: MediaTime, _ b: MediaTime) -> MediaTime {
        var rounded = a.flags.contains(.hasBeenRounded) || b.flags.contains(.hasBeenRounded)
        let g = gcd(UInt64(a.timescale), UInt64(b.timescale))
        var scale = Int64(a.timescale) / Int64(g) * Int64(b.timescale)
        if scale > Int64(Int32.max) {
            scale = Int64(max(a.timescale, b.timescale))
        }
        let ca = a.convertScale(Int32(scale))
        let cb = b.convertScale(Int32(scale))
        guard ca.isNumeric, cb.isNumeric else { return ca.isNumeric ? cb : ca }
        rounded = rounded || ca.flags.contains(.hasBeenRounded) || cb.flags.contains(.hasBeenRounded)
        let (sum, overflow) = ca.value.addingReportingOverflow(cb.value)
        if overflow { return ca.value < 0 ? .negativeInfinity : .positiveInfinity }
        var result = MediaTime(value: sum, timescale: Int32(scale))
        if rounded { result.flags.insert(.hasBeenRounded) }
        return result
    }

    package static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }

    /// `a * b / c` with 128-bit intermediate and the given rounding (c > 0).
    /// Returns nil when the quotient does not fit in Int64, else the quotient and whether it is exact.
    package static func mulDiv(_ a: Int64, _ b: Int64, _ c: Int64, _ method: RoundingMethod) -> (Int64, Bool)? {
        precondition(c > 0)
        let negative = (a < 0) != (b < 0)
        let product = a.magnitude.multipliedFullWidth(by: b.magnitude)
        let divisor = c.magnitude
        guard product.high < divisor else { return nil }
        let (quotient, r) = divisor.dividingFullWidth(product)
        var q = quotient
        let exact = r == 0
        if !exact {
            let awayFromZero: Bool
            switch method {
            case .roundHalfAwayFromZero: awayFromZero = r >= divisor - r
            case .roundTowardZero: awayFromZero = false
            case .roundAwayFromZero: awayFromZero = true
            case .roundTowardPositiveInfinity: awayFromZero = !negative
            case .roundTowardNegativeInfinity: awayFromZero = negative
            }
            if awayFromZero {
                guard q < .max else { return nil }
                q += 1
            }
        }
        if negative {
            guard q <= UInt64(Int64.max) + 1 else { return nil }
            return (q == UInt64(Int64.max) + 1 ? Int64.min : -Int64(q), exact)
        }
        guard q <= UInt64(Int64.max) else { return nil }
        return (Int64(q), exact)
    }
}
