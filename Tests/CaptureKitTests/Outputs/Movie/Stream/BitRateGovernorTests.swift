import Testing
@testable import CaptureKit

/// The congestion governor: down by a third per congested second to its floor, back up by a
/// quarter after each 5 calm seconds, never above the rate asked for.
@Suite(.excludable)
struct BitRateGovernorTests {
    @Test func congestionStepsDownToTheFloorAndCalmStepsBackUp() {
        var governor = BitRateGovernor(configured: 2_400_000)
        var rates: [Int] = []
        for _ in 0..<6 { if let rate = governor.observe(fullness: 0.8) { rates.append(rate) } }
        #expect(rates == [1_600_000, 1_066_666, 711_110, 600_000])
        #expect(governor.current == governor.floor)
        rates = []
        for _ in 0..<40 { if let rate = governor.observe(fullness: 0.0) { rates.append(rate) } }
        #expect(rates.first == 750_000 && rates.last == 2_400_000)
        #expect(rates == rates.sorted() && rates.allSatisfy { $0 <= 2_400_000 })
    }

    @Test func aBusyButNotCongestedLinkHoldsTheRate() {
        var governor = BitRateGovernor(configured: 1_000_000)
        _ = governor.observe(fullness: 0.9)
        let held = (0..<20).compactMap { _ in governor.observe(fullness: 0.3) }
        #expect(held.isEmpty && governor.current == 666_666)
    }

    @Test func aNewRateIsTheNewCeiling() {
        var governor = BitRateGovernor(configured: 1_000_000)
        _ = governor.observe(fullness: 0.9)
        governor.reset(configured: 500_000)
        #expect(governor.current == 500_000)
        #expect((0..<20).compactMap { _ in governor.observe(fullness: 0) }.isEmpty)
    }
}
