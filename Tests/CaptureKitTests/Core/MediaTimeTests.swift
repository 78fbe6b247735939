import Testing
@testable import CaptureKit

@Suite("MediaTime")
struct MediaTimeTests {
    typealias T = MediaTime

    // MARK: Construction

    @Test func valueAndTimescale() {
        let t = T(value: 45, timescale: 30)
        #expect(t.value == 45)
        #expect(t.timescale == 30)
        #expect(t.isValid && t.isNumeric)
        #expect(!t.flags.contains(.hasBeenRounded))
        #expect(t.seconds == 1.5)
        #expect(t.nanoseconds == 1_500_000_000)
    }

    @Test(arguments: [Int32(0), -1, Int32.min])
    func nonPositiveTimescaleIsInvalid(timescale: Int32) {
        let t = T(value: 5, timescale: timescale)
        #expect(!t.isValid)
        #expect(t == .invalid)
        #expect(t.seconds.isNaN)
        #expect(t.nanoseconds == nil)
    }

    @Test func initFromSeconds() {
        let exact = T(seconds: 1.5, preferredTimescale: 1000)
        #expect(exact.value == 1500 && exact.timescale == 1000)
        #expect(!exact.flags.contains(.hasBeenRounded))
        #expect(exact.seconds == 1.5)

        let rounded = T(seconds: 0.1, preferredTimescale: 3)   // 0.3 units → 0
        #expect(rounded.value == 0 && rounded.timescale == 3)
        #expect(rounded.flags.contains(.hasBeenRounded))

        // Halves round away from zero.
        #expect(T(seconds: 2.5, preferredTimescale: 1).value == 3)
        #expect(T(seconds: -2.5, preferredTimescale: 1).value == -3)
        #expect(T(seconds: 1.0 / 3.0, preferredTimescale: 600).value == 200)
        #expect(T(seconds: -0.75, preferredTimescale: 4) == T(value: -3, timescale: 4))
    }

    @Test func initFromSpecialSeconds() {
        #expect(!T(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(!T(seconds: 1, preferredTimescale: 0).isValid)
        #expect(!T(seconds: 1, preferredTimescale: -600).isValid)
        #expect(T(seconds: .infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(T(seconds: -.infinity, preferredTimescale: 600).isNegativeInfinity)
        // Out of Int64 range after scaling: overflow goes to infinity.
        #expect(T(seconds: 1e30, preferredTimescale: 600).isPositiveInfinity)
        #expect(T(seconds: -1e30, preferredTimescale: 600).isNegativeInfinity)
        #expect(T(seconds: 1e10, preferredTimescale: 1_000_000_000).isPositiveInfinity)
    }

    // MARK: Addition and subtraction

    @Test func addUsesLeastCommonMultipleOfTimescales() {
        let sum = T(value: 1, timescale: 30) + T(value: 1, timescale: 25)
        #expect(sum.timescale == 150)
        #expect(sum.value == 11)
        #expect(!sum.flags.contains(.hasBeenRounded))

        // LCM, not the product: 1/6 + 1/4 = 5/12.
        let small = T(value: 1, timescale: 6) + T(value: 1, timescale: 4)
        #expect(small.timescale == 12)
        #expect(small.value == 5)

        // Audio + video time: 48 kHz is a multiple of 30.
        let av = T(value: 480, timescale: 48_000) + T(value: 1, timescale: 30)
        #expect(av.timescale == 48_000)
        #expect(av.value == 480 + 1600)
    }

    @Test func subtractUsesLeastCommonMultipleOfTimescales() {
        let difference = T(value: 1, timescale: 25) - T(value: 1, timescale: 30)
        #expect(difference.timescale == 150)
        #expect(difference.value == 1)
        #expect(!difference.flags.contains(.hasBeenRounded))

        let negative = T(value: 1, timescale: 30) - T(value: 1, timescale: 25)
        #expect(negative.timescale == 150)
        #expect(negative.value == -1)

        var t = T(value: 3, timescale: 4)
        t -= T(value: 1, timescale: 6)      // 9/12 - 2/12
        #expect(t.value == 7 && t.timescale == 12)
        t += T(value: 5, timescale: 12)
        #expect(t == T(value: 1, timescale: 1))
    }

    @Test func addFallsBackToLargerTimescaleWhenLCMOverflows() {
        // lcm(1e9, 48000) = 3e9 does not fit in Int32: the larger timescale is used and the
        // result is marked rounded (1/48000 s is 20833.33 ns).
        let sum = T(value: 1, timescale: 1_000_000_000) + T(value: 1, timescale: 48_000)
        #expect(sum.timescale == 1_000_000_000)
        #expect(sum.value == 1 + 20_833)
        #expect(sum.flags.contains(.hasBeenRounded))
    }

    @Test func roundedFlagPropagates() {
        let rounded = T(seconds: 0.1, preferredTimescale: 3)
        #expect((rounded + T(value: 1, timescale: 3)).flags.contains(.hasBeenRounded))
        #expect(!(T(value: 1, timescale: 3) + T(value: 1, timescale: 3)).flags.contains(.hasBeenRounded))
    }

    // MARK: convertScale

    struct RoundingCase: Sendable, CustomTestStringConvertible {
        var method: T.RoundingMethod
        /// Expected results for 5/10, -5/10, 7/10, -7/10, 4/10, -4/10 converted to timescale 1.
        var expected: [Int64]
        var testDescription: String { "\(method)" }
    }

    @Test(arguments: [
        RoundingCase(method: .roundHalfAwayFromZero, expected: [1, -1, 1, -1, 0, 0]),
        RoundingCase(method: .roundTowardZero, expected: [0, 0, 0, 0, 0, 0]),
        RoundingCase(method: .roundAwayFromZero, expected: [1, -1, 1, -1, 1, -1]),
        RoundingCase(method: .roundTowardPositiveInfinity, expected: [1, 0, 1, 0, 1, 0]),
        RoundingCase(method: .roundTowardNegativeInfinity, expected: [0, -1, 0, -1, 0, -1]),
    ])
    func convertScaleRounding(_ rounding: RoundingCase) {
        let values: [Int64] = [5, -5, 7, -7, 4, -4]
        for (value, expected) in zip(values, rounding.expected) {
            let converted = T(value: value, timescale: 10).convertScale(1, method: rounding.method)
            #expect(converted.value == expected, "\(value)/10 with \(rounding.method)")
            #expect(converted.timescale == 1)
            #expect(converted.flags.contains(.hasBeenRounded), "\(value)/10 → 1 is inexact")
        }
        // Exact conversions are not marked rounded, whatever the method.
        let exact = T(value: 1, timescale: 2).convertScale(1000, method: rounding.method)
        #expect(exact.value == 500 && exact.timescale == 1000)
        #expect(!exact.flags.contains(.hasBeenRounded))
        // Larger denominators: 1/3 s in milliseconds.
        let third = T(value: 1, timescale: 3).convertScale(1000, method: rounding.method)
        let expectedThird: Int64 = [.roundAwayFromZero, .roundTowardPositiveInfinity].contains(rounding.method) ? 334 : 333
        #expect(third.value == expectedThird)
    }

    @Test func convertScaleDefaultsToHalfAwayFromZero() {
        #expect(T(value: 15, timescale: 10).convertScale(1).value == 2)
        #expect(T(value: -15, timescale: 10).convertScale(1).value == -2)
        #expect(T(value: 45, timescale: 30).convertScale(1000).value == 1500)
    }

    @Test func convertScaleOfSpecialValuesAndBadTimescale() {
        #expect(T.positiveInfinity.convertScale(1000).isPositiveInfinity)
        #expect(T.negativeInfinity.convertScale(1000).isNegativeInfinity)
        #expect(T.indefinite.convertScale(1000).isIndefinite)
        #expect(!T.invalid.convertScale(1000).isValid)
        #expect(!T(value: 1, timescale: 2).convertScale(0).isValid)
    }

    @Test func convertScaleOverflowGoesToInfinity() {
        #expect(T(value: .max / 10, timescale: 1).convertScale(1000).isPositiveInfinity)
        #expect(T(value: .min / 10, timescale: 1).convertScale(1000).isNegativeInfinity)
        // A 128-bit intermediate: large values that fit after division stay exact.
        let big = T(value: .max, timescale: 1_000_000_000).convertScale(500_000_000, method: .roundTowardZero)
        #expect(big.value == Int64.max / 2)
    }

    // MARK: Comparison and hashing

    @Test func equalTimesWithDifferentTimescales() {
        let half = T(value: 1, timescale: 2)
        let twoQuarters = T(value: 2, timescale: 4)
        #expect(half == twoQuarters)
        #expect(T.compare(half, twoQuarters) == 0)
        #expect(half.hashValue == twoQuarters.hashValue)
        #expect(Set([half, twoQuarters, T(value: 500, timescale: 1000)]).count == 1)
        #expect(T(value: -1, timescale: 2).hashValue == T(value: -3, timescale: 6).hashValue)
        #expect(T(value: 0, timescale: 1) == T(value: 0, timescale: 600))
        #expect(T(value: 0, timescale: 1).hashValue == T(value: 0, timescale: 600).hashValue)
        #expect(half != T(value: 1, timescale: 3))
        #expect(Set([half, T(value: 1, timescale: 3)]).count == 2)
    }

    @Test func numericOrder() {
        #expect(T(value: 1, timescale: 3) < T(value: 1, timescale: 2))
        #expect(T(value: -1, timescale: 2) < T(value: -1, timescale: 3))
        #expect(T.compare(T(value: 1, timescale: 3), T(value: 1, timescale: 2)) == -1)
        #expect(T.compare(T(value: 1, timescale: 2), T(value: 1, timescale: 3)) == 1)
        // Cross-multiplication must not overflow.
        let a = T(value: .max, timescale: 1_000_000_000)
        let b = T(value: .max, timescale: 999_999_999)
        #expect(a < b)
        #expect(T(value: .min, timescale: 999_999_999) < T(value: .min, timescale: 1_000_000_000))
        #expect(T.minimum(a, b) == a)
        #expect(T.maximum(a, b) == b)
    }

    @Test func specialValuesOrder() {
        // CMTime semantics: -inf < numeric < indefinite < +inf < invalid.
        let shuffled: [T] = [.invalid, T(value: 3, timescale: 1), .positiveInfinity, .negativeInfinity,
                             .indefinite, T(value: .min, timescale: 1), T(value: .max, timescale: 1)]
        let sorted = shuffled.sorted()
        #expect(sorted[0].isNegativeInfinity)
        #expect(sorted[1] == T(value: .min, timescale: 1))
        #expect(sorted[2] == T(value: 3, timescale: 1))
        #expect(sorted[3] == T(value: .max, timescale: 1))
        #expect(sorted[4].isIndefinite)
        #expect(sorted[5].isPositiveInfinity)
        #expect(!sorted[6].isValid)

        #expect(T.negativeInfinity < T(value: .min, timescale: 1))
        #expect(T(value: .max, timescale: 1) < T.indefinite)
        #expect(T.indefinite < T.positiveInfinity)
        #expect(T.positiveInfinity < T.invalid)
        #expect(T.compare(.invalid, .invalid) == 0)
        #expect(T.invalid == T(value: 1, timescale: 0))
        #expect(T.indefinite == T.indefinite)
        #expect(T.positiveInfinity == T.positiveInfinity)
        #expect(T.positiveInfinity != T.negativeInfinity)
        #expect(T.invalid.hashValue == T(value: 7, timescale: -1).hashValue)
    }

    // MARK: Special values in arithmetic

    @Test func specialValuesInAddition() {
        let one = T(value: 1, timescale: 1)
        #expect(!(T.invalid + one).isValid)
        #expect(!(one + T.invalid).isValid)
        #expect(!(T.invalid + T.positiveInfinity).isValid)
        #expect(!(T.positiveInfinity + T.negativeInfinity).isValid)
        #expect(!(T.negativeInfinity + T.positiveInfinity).isValid)
        #expect((T.positiveInfinity + one).isPositiveInfinity)
        #expect((one + T.negativeInfinity).isNegativeInfinity)
        #expect((T.positiveInfinity + T.positiveInfinity).isPositiveInfinity)
        #expect((T.indefinite + one).isIndefinite)
        #expect((one + T.indefinite).isIndefinite)
        #expect((T.indefinite + T.positiveInfinity).isPositiveInfinity)
        #expect((T.negativeInfinity + T.indefinite).isNegativeInfinity)
    }

    @Test func specialValuesInSubtraction() {
        let one = T(value: 1, timescale: 1)
        #expect(!(T.invalid - one).isValid)
        #expect(!(one - T.invalid).isValid)
        #expect(!(T.positiveInfinity - T.positiveInfinity).isValid)
        #expect(!(T.negativeInfinity - T.negativeInfinity).isValid)
        #expect((T.positiveInfinity - T.negativeInfinity).isPositiveInfinity)
        #expect((T.negativeInfinity - T.positiveInfinity).isNegativeInfinity)
        #expect((one - T.positiveInfinity).isNegativeInfinity)
        #expect((one - T.negativeInfinity).isPositiveInfinity)
        #expect((T.positiveInfinity - one).isPositiveInfinity)
        #expect((T.indefinite - one).isIndefinite)
        #expect((one - T.indefinite).isIndefinite)
        #expect((T.indefinite - T.indefinite).isIndefinite)
        #expect((-T.positiveInfinity).isNegativeInfinity)
        #expect((-T.indefinite).isIndefinite)
        #expect(!(-T.invalid).isValid)
    }

    @Test func specialValuesInMultiplication() {
        #expect((T.positiveInfinity * 2).isPositiveInfinity)
        #expect((T.positiveInfinity * -2).isNegativeInfinity)
        #expect((T.negativeInfinity * 3).isNegativeInfinity)
        #expect((T.negativeInfinity * -1).isPositiveInfinity)
        #expect((T.indefinite * 5).isIndefinite)
        #expect(!(T.invalid * 5).isValid)
        #expect(T.positiveInfinity.multiplied(by: -1, dividedBy: 2).isNegativeInfinity)
        #expect(T.negativeInfinity.multiplied(by: -3, dividedBy: -2).isNegativeInfinity)
        #expect(T.indefinite.multiplied(by: 2, dividedBy: 3).isIndefinite)
        #expect(!T.invalid.multiplied(by: 2, dividedBy: 3).isValid)
    }

    @Test func multiplyByInteger() {
        let frame = T(value: 1, timescale: 30)
        let t = frame * 45
        #expect(t.value == 45 && t.timescale == 30)
        #expect(t.seconds == 1.5)
        #expect((frame * -3) == T(value: -1, timescale: 10))
        #expect((frame * 0) == .zero)
    }

    // MARK: Overflow

    @Test func overflowGoesToInfinity() {
        let one = T(value: 1, timescale: 1)
        #expect((T(value: .max, timescale: 1) + one).isPositiveInfinity)
        #expect((T(value: .min, timescale: 1) - one).isNegativeInfinity)
        #expect((T(value: .max / 2 + 1, timescale: 1) * 2).isPositiveInfinity)
        #expect((T(value: .max / 2 + 2, timescale: 1) * -2).isNegativeInfinity)
        // -2^63 itself is representable: no overflow.
        #expect((T(value: .max / 2 + 1, timescale: 1) * -2).value == .min)
        #expect((T(value: .min, timescale: 1) * 2).isNegativeInfinity)
        #expect((T(value: -(.max / 2) - 2, timescale: 1) * -2).isPositiveInfinity)
        #expect((-T(value: .min, timescale: 1)).isPositiveInfinity)
        // Overflow while bringing both to the common timescale.
        #expect((T(value: .max, timescale: 1) + T(value: 1, timescale: 2)).isPositiveInfinity)
        #expect(T(value: .max, timescale: 1).multiplied(by: 3, dividedBy: 2).isPositiveInfinity)
        #expect(T(value: .max, timescale: 1).multiplied(by: -3, dividedBy: 2).isNegativeInfinity)
        #expect(T(value: .max, timescale: 1).multiplied(by: 3, dividedBy: -2).isNegativeInfinity)
        // The largest value still fits.
        #expect((T(value: .max - 1, timescale: 1) + one).value == .max)
    }

    // MARK: multiplied(by:dividedBy:)

    @Test func multipliedByRatio() {
        let t = T(value: 10, timescale: 30).multiplied(by: 3, dividedBy: 2)
        #expect(t.value == 15 && t.timescale == 30)
        #expect(!t.flags.contains(.hasBeenRounded))

        let third = T(value: 90_000, timescale: 90_000).multiplied(by: 1, dividedBy: 3)
        #expect(third.value == 30_000 && third.timescale == 90_000)

        // Negative divisor and multiplier.
        #expect(T(value: 10, timescale: 30).multiplied(by: 3, dividedBy: -2) == T(value: -15, timescale: 30))
        #expect(T(value: 10, timescale: 30).multiplied(by: -3, dividedBy: -2) == T(value: 15, timescale: 30))

        // Inexact: rounded half away from zero and marked.
        let rounded = T(value: 1, timescale: 30).multiplied(by: 1, dividedBy: 2)
        #expect(rounded.value == 1)
        #expect(rounded.flags.contains(.hasBeenRounded))
        let roundedDown = T(value: 1, timescale: 30).multiplied(by: 1, dividedBy: 3)
        #expect(roundedDown.value == 0)
        #expect(roundedDown.flags.contains(.hasBeenRounded))
        #expect(T(value: -1, timescale: 30).multiplied(by: 1, dividedBy: 2).value == -1)

        // 128-bit intermediate: the product overflows Int64 but the quotient fits.
        let large = T(value: .max / 2, timescale: 1).multiplied(by: 4, dividedBy: 4)
        #expect(large.value == Int64.max / 2)
        #expect(!large.flags.contains(.hasBeenRounded))

        #expect(!T(value: 1, timescale: 1).multiplied(by: 1, dividedBy: 0).isValid)
    }

    @Test func descriptions() {
        #expect(T.invalid.description == "invalid")
        #expect(T.indefinite.description == "indefinite")
        #expect(T.positiveInfinity.description == "+inf")
        #expect(T.negativeInfinity.description == "-inf")
        #expect(T(value: 3, timescale: 2).description.hasPrefix("3/2"))
        #expect(T.positiveInfinity.seconds == .infinity)
        #expect(T.negativeInfinity.seconds == -.infinity)
        #expect(T.indefinite.seconds.isNaN)
    }
}
