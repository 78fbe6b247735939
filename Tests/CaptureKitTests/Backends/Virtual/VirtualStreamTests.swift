import Testing
@testable import CaptureKit

/// The virtual devices' timestamp grid (VirtualStream).
struct VirtualStreamTests {
    /// The virtual devices' timestamp grid: a multiple of the period's own timescale (so
    /// samples stay exactly one period apart) at most a millisecond fine, so a stream's first
    /// sample starts within a millisecond of the stream rather than on the next 1/30 s tick.
    @Test func theVirtualDevicesGridIsAtMostAMillisecond() {
        #expect(VirtualStream.gridTimescale(for: MediaTime(value: 1, timescale: 30)) == 1020)
        #expect(VirtualStream.gridTimescale(for: MediaTime(value: 1001, timescale: 30000)) == 30000)
        #expect(VirtualStream.gridTimescale(for: MediaTime(value: 1024, timescale: 48000)) == 48000)
        #expect(VirtualStream.gridTimescale(for: MediaTime(value: 1, timescale: 7)) == 1001)
        for period in [MediaTime(value: 1, timescale: 30), MediaTime(value: 1, timescale: 7), MediaTime(value: 2, timescale: 25)] {
            let scale = VirtualStream.gridTimescale(for: period)
            #expect(period.convertScale(scale) == period, "\(period) is whole in 1/\(scale) s")
        }
    }
}
