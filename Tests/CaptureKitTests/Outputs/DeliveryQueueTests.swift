import Dispatch
import Testing
@testable import CaptureKit

/// The queue between a device thread and an output's thread, with no session and no clock: a
/// consumer held inside its first delivery while the test enqueues samples and device drops,
/// then the order in which samples and drop reports come out.
@Suite("DeliveryQueue")
struct DeliveryQueueTests {
    /// A queue whose consumer blocks in the delivery of sample 0 until released.
    private final class HeldConsumer: Sendable {
        let log = Recorder<DeliveryEvent>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let connection: CaptureConnection
        let queue: DeliveryQueue

        init(policy: DeliveryQueue.Policy) throws {
            let camera = try makeTestCamera("delivery queue")
            let input = try CaptureDeviceInput(device: camera)
            CaptureDevice.removeVirtualDevice(camera)
            connection = CaptureConnection(port: try #require(input.ports.first), output: CaptureVideoDataOutput())
            let log = log, entered = entered, release = release
            queue = DeliveryQueue(name: "tests.deliveryQueue", policy: policy, deliver: { item in
                if item.sample.sequenceNumber == 0 {
                    entered.signal()
                    release.wait()
                }
                log.append(.sample(ReceivedSample(sample: item.sample, arrival: 0)))
            }, report: { drop in
                log.append(.drop(drop.frame))
            })
        }

        func enqueue(_ index: UInt64) throws {
            let pts = MediaTime(value: Int64(index), timescale: 30)
            let frame = SampleBuffer(media: .video(try PixelBuffer(width: 2, height: 2, pixelFormat: .nv12)),
                                     presentationTimeStamp: pts, duration: MediaTime(value: 1, timescale: 30), sequenceNumber: index)
            queue.enqueue(DeliveryQueue.Item(sample: frame, connection: connection))
        }

        func deviceDropped(_ count: Int) {
            queue.enqueueDrop(DeliveryQueue.Drop(frame: DroppedFrame(presentationTimeStamp: .invalid, reason: .discontinuity, count: count),
                                                 connection: connection))
        }

        /// What came out, as "s<n>" for samples and "<reason>×<count>" for reports.
        var transcript: [String] {
            log.items.map { event in
                switch event {
                case .sample(let received): return "s\(received.sequenceNumber)"
                case .drop(let frame): return "\(frame.reason.rawValue)×\(frame.count)"
                }
            }
        }
    }

    /// Newest-only: waiting samples become late reports where they stood, merged with their
    /// neighbours, and a device skip stays between the samples it fell between.
    @Test func newestOnlyReportsEachDropInItsPlace() async throws {
        let consumer = try HeldConsumer(policy: .newestOnly)
        defer { consumer.queue.stop() }
        try consumer.enqueue(0)
        consumer.entered.wait()
        try consumer.enqueue(1)
        try consumer.enqueue(2)          // 1 was late
        consumer.deviceDropped(3)    // 3, 4, 5 never came
        try consumer.enqueue(6)          // 2 was late
        try consumer.enqueue(7)          // 6 was late
        consumer.release.signal()
        #expect(await consumer.log.wait(forCount: 5))
        #expect(consumer.transcript == ["s0", "frameWasLate×2", "discontinuity×3", "frameWasLate×1", "s7"])
        let accounting = FrameAccounting(consumer.log.items)
        #expect(accounting.isComplete, "\(accounting)")
        #expect(accounting.produced == 8)
    }

    /// Bounded: samples already waiting are delivered before the report of a drop that came
    /// after them (a report before them would tell the consumer frames were missing that are
    /// still to come).
    @Test func boundedDeliversWaitingSamplesBeforeLaterDrops() async throws {
        let consumer = try HeldConsumer(policy: .bounded(2))
        defer { consumer.queue.stop() }
        try consumer.enqueue(0)
        consumer.entered.wait()
        try consumer.enqueue(1)
        try consumer.enqueue(2)
        try consumer.enqueue(3)          // full: refused
        consumer.deviceDropped(2)    // 4, 5
        try consumer.enqueue(6)          // still full: refused
        consumer.release.signal()
        #expect(await consumer.log.wait(forCount: 6))
        try consumer.enqueue(7)
        #expect(await consumer.log.wait(forCount: 7))
        #expect(consumer.transcript == ["s0", "s1", "s2", "outOfBuffers×1", "discontinuity×2", "outOfBuffers×1", "s7"])
        let accounting = FrameAccounting(consumer.log.items)
        #expect(accounting.isComplete, "\(accounting)")
    }

    /// Consecutive refused samples are one report with a count.
    @Test func consecutiveDropsForOneReasonAreOneReport() async throws {
        let consumer = try HeldConsumer(policy: .bounded(1))
        defer { consumer.queue.stop() }
        try consumer.enqueue(0)
        consumer.entered.wait()
        for index in 1...20 { try consumer.enqueue(UInt64(index)) }   // 1 waits, 2…20 refused
        consumer.release.signal()
        #expect(await consumer.log.wait(forCount: 3))
        try consumer.enqueue(21)
        #expect(await consumer.log.wait(forCount: 4))
        #expect(consumer.transcript == ["s0", "s1", "outOfBuffers×19", "s21"])
        #expect(FrameAccounting(consumer.log.items).isComplete)
    }
}
