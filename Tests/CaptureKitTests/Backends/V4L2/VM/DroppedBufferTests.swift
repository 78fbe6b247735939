import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// vivid's "Percentage of Dropped Buffers": the driver skips buffers (their sequence numbers
    /// are never delivered); every skipped one must be reported as a device drop.
    @Suite struct DroppedBufferTests {
        @Test func droppedBuffersAreCountedAndReported() async throws {
            let node = VMEnvironment.vivid(0)
            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 30)
            try V4L2Ctl.set(node, ["percentage_of_dropped_buffers": "40"])
            defer { try? V4L2Ctl.set(node, ["percentage_of_dropped_buffers": "0"]) }

            let (recorder, output) = try await VMCapture.frames(device, count: 30, timeout: .seconds(60))

            let sequences = recorder.samples.items.map(\.sequenceNumber)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "sequence numbers in order: \(sequences)")
            let missing = zip(sequences, sequences.dropFirst()).reduce(0) { $0 + Int($1.1 - $1.0 - 1) }
            // With 40 % dropped, 30 frames with no gap has a probability of 0.6^29 ≈ 4e-7.
            #expect(missing > 0, "the driver dropped nothing? sequences \(sequences)")
            // A slow consumer may also lose frames (reported as late); every missing sequence
            // number must be reported for one reason or the other, the device's at least once.
            let drops = recorder.drops.items
            let deviceDrops = drops.filter { $0.reason == .discontinuity }.reduce(0) { $0 + $1.count }
            let reported = drops.reduce(0) { $0 + $1.count }
            #expect(deviceDrops > 0, "no device drop reported: \(drops)")
            // Drops before the first delivered frame are reported too.
            #expect(reported >= missing, "reported \(reported) drops (\(deviceDrops) by the device) for \(missing) missing sequence numbers")
            // Never more device drops than sequence numbers the driver skipped (the output may
            // still drop late frames after the last one recorded here).
            #expect(deviceDrops <= missing + Int(sequences.first ?? 0),
                    "\(deviceDrops) device drops, missing \(missing), first sequence \(sequences.first ?? 0); drops: \(drops); sequences: \(sequences)")
            #expect(output.statistics.dropped >= missing)
            // And by sequence number: every frame up to the last one delivered was delivered or
            // reported, each exactly once.
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }
    }
}
