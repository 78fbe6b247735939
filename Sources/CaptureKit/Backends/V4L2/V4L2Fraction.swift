/// A V4L2 frame interval: `numerator / denominator` seconds between frames.
struct V4L2Fraction: Sendable, Hashable {
    var numerator: UInt32
    var denominator: UInt32

    /// The interval as a media time, or nil for a zero or undefined fraction.
    var duration: MediaTime? {
        guard numerator > 0, denominator > 0, denominator <= UInt32(Int32.max) else { return nil }
        return MediaTime(value: Int64(numerator), timescale: Int32(denominator))
    }

    /// The interval of a media time (1/30 s → 1/30).
    init(_ duration: MediaTime) {
        numerator = UInt32(clamping: max(duration.value, 1))
        denominator = UInt32(clamping: max(Int64(duration.timescale), 1))
    }

    init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }
}
