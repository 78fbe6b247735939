import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A slow consumer gets the newest frame and drop reports; it never slows the device or
    /// another output down.
    @Suite(.serialized)
    struct LateFrameDroppingTests {
        /// The sequence numbers of every frame a drop report covers. Frames are exactly one frame
        /// duration apart, so the first dropped frame's sequence number follows from its time and
        /// any delivered frame's; a report covers `count` consecutive frames.
        static func droppedSequences(_ drops: [DroppedFrame], reference: ReceivedSample, frameDuration: MediaTime) -> [UInt64] {
            drops.flatMap { drop -> [UInt64] in
                let offset = (drop.presentationTimeStamp - reference.sample.presentationTimeStamp)
                    .convertScale(frameDuration.timescale).value / frameDuration.value
                let first = UInt64(Int64(reference.sequenceNumber) + offset)
                return (0..<UInt64(drop.count)).map { first + $0 }
            }
        }

        /// Checks that between the first and last delivered frame, every frame was either
        /// delivered or reported dropped (never both, never twice).
        /// What every delivery keeps under any load: the sequence-number account is complete,
        /// timestamps are exact, every frame slot is delivered or reported, and reports come in
        /// capture order.
        static func expectPromisesKept(_ log: [DeliveryEvent], delivered: [ReceivedSample], drops: [DroppedFrame], frameDuration: MediaTime,
                                       sourceLocation: SourceLocation = #_sourceLocation) {
            let accounting = FrameAccounting(log)
            #expect(accounting.isComplete, "\(accounting)", sourceLocation: sourceLocation)
            let times = FrameTimestamps(delivered, frameDuration: frameDuration)
            #expect(times.isExact, "\(times)", sourceLocation: sourceLocation)
            expectEveryFrameAccountedFor(delivered: delivered, drops: drops, frameDuration: frameDuration, sourceLocation: sourceLocation)
            expectReportsInCaptureOrder(log, frameDuration: frameDuration, sourceLocation: sourceLocation)
        }

        static func expectEveryFrameAccountedFor(delivered: [ReceivedSample], drops: [DroppedFrame], frameDuration: MediaTime,
                                                 sourceLocation: SourceLocation = #_sourceLocation) {
            guard let first = delivered.first, let last = delivered.last else {
                Issue.record("nothing delivered", sourceLocation: sourceLocation)
                return
            }
            let deliveredSequences = delivered.map(\.sequenceNumber)
            // Frames the camera itself skipped (a loaded machine) are reported without a time.
            let skippedByDevice = drops.filter { $0.reason == .discontinuity }.reduce(0) { $0 + $1.count }
            let dropped = droppedSequences(drops.filter { $0.reason != .discontinuity }, reference: first, frameDuration: frameDuration)
                .filter { $0 <= last.sequenceNumber }
            #expect(Set(dropped).count == dropped.count, "a frame reported dropped twice", sourceLocation: sourceLocation)
            #expect(Set(dropped).isDisjoint(with: deliveredSequences), "a frame both dropped and delivered", sourceLocation: sourceLocation)
            let missing = Set(first.sequenceNumber...last.sequenceNumber).subtracting(deliveredSequences).subtracting(dropped)
            #expect(missing.count <= skippedByDevice, "\(missing.count) frames neither delivered nor reported dropped: \(missing.sorted())",
                    sourceLocation: sourceLocation)
        }

        /// Checks that drop reports sit in capture order among the delivered samples: every
        /// sample before a report is older than the frames it covers, every sample after it is
        /// newer. (Device discontinuities carry no time; ``FrameAccounting`` places them by count.)
        static func expectReportsInCaptureOrder(_ log: [DeliveryEvent], frameDuration: MediaTime,
                                                sourceLocation: SourceLocation = #_sourceLocation) {
            for (index, event) in log.enumerated() {
                guard case .drop(let drop) = event, drop.presentationTimeStamp.isNumeric else { continue }
                let end = drop.presentationTimeStamp + frameDuration * Int64(drop.count)
                for case .sample(let earlier) in log[..<index] where earlier.sample.presentationTimeStamp >= drop.presentationTimeStamp {
                    Issue.record("frame \(earlier.sequenceNumber) delivered before the \(drop.reason) report of older frames at \(drop.presentationTimeStamp)",
                                 sourceLocation: sourceLocation)
                }
                for case .sample(let later) in log[(index + 1)...] where later.sample.presentationTimeStamp < end {
                    Issue.record("frame \(later.sequenceNumber) delivered after the \(drop.reason) report of newer frames at \(drop.presentationTimeStamp)",
                                 sourceLocation: sourceLocation)
                }
            }
        }

        @Test func slowConsumerGetsTheNewestFrameAndHoldsUpNoOneElse() async throws {
            let camera = try makeTestCamera("late frames")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let slowOutput = CaptureVideoDataOutput()
            let fastOutput = CaptureVideoDataOutput()
            #expect(slowOutput.alwaysDiscardsLateVideoFrames, "the default")
            let busy: Int64 = 150_000_000
            let slow = SampleRecorder(label: "tests.slow", delay: .nanoseconds(busy))
            let fast = SampleRecorder(label: "tests.fast")
            slow.attach(to: slowOutput)
            fast.attach(to: fastOutput)
            let session = try makeSession(camera: camera, outputs: [slowOutput, fastOutput])

            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await slow.samples.wait(forCount: 8, timeout: .seconds(30)))
            #expect(await fast.samples.wait(forCount: 45, timeout: .seconds(30)))
            try session.stopRunning()

            let duration = frameDuration(fps: 30)
            let slowLog = slow.log.items
            let slowFrames = slowLog.compactMap { event -> ReceivedSample? in if case .sample(let s) = event { s } else { nil } }
            let drops = slowLog.compactMap { event -> DroppedFrame? in if case .drop(let d) = event { d } else { nil } }
            // Statistics count a drop before the delegate hears of it, and a delivery after the
            // delegate returns, so (read after the log, before re-reading the samples):
            let statistics = slowOutput.statistics
            let droppedCount = drops.reduce(0) { $0 + $1.count }
            #expect(statistics.dropped >= droppedCount)
            #expect(statistics.delivered <= slow.samples.count)
            #expect(statistics.delivered + 1 >= slowFrames.count)

            // Both outputs: every frame delivered or reported dropped, timestamps exact.
            let fastFrames = fast.samples.items
            #expect(FrameAccounting(slowLog).isComplete, "slow output: \(FrameAccounting(slowLog))")
            #expect(fast.accounting.isComplete, "fast output: \(fast.accounting)")
            let slowTimes = FrameTimestamps(slowFrames, frameDuration: duration)
            let fastTimes = FrameTimestamps(fastFrames, frameDuration: duration)
            #expect(slowTimes.isExact, "slow output: \(slowTimes)")
            #expect(fastTimes.isExact, "fast output: \(fastTimes)")
            Self.expectEveryFrameAccountedFor(delivered: slowFrames, drops: drops, frameDuration: duration)
            Self.expectReportsInCaptureOrder(slowLog, frameDuration: duration)

            // The slow consumer is told its frames were late (or skipped by a loaded camera),
            // never that a queue was full; a late report says when the first frame was captured.
            #expect(drops.allSatisfy { $0.reason == .frameWasLate || $0.reason == .discontinuity }, "reasons \(Set(drops.map(\.reason)))")
            let late = drops.filter { $0.reason == .frameWasLate }
            #expect(late.allSatisfy { $0.count >= 1 && $0.presentationTimeStamp.isNumeric }, "odd drops: \(late)")
            // Every frame the fast output got while the slow one was busy reached the slow one as
            // a late frame: the camera produced it, so only lateness can explain its absence.
            let slowFirst = try #require(slowFrames.first), slowLast = try #require(slowFrames.last)
            let reportedLate = Set(Self.droppedSequences(late, reference: slowFirst, frameDuration: duration))
            let slowSequences = Set(slowFrames.map(\.sequenceNumber))
            let missedBySlow = fastFrames.map(\.sequenceNumber)
                .filter { (slowFirst.sequenceNumber...slowLast.sequenceNumber).contains($0) && !slowSequences.contains($0) }
            #expect(!missedBySlow.isEmpty, "a 150 ms consumer of a 30 fps camera misses frames")
            #expect(missedBySlow.allSatisfy(reportedLate.contains), "not reported late: \(missedBySlow.filter { !reportedLate.contains($0) })")

            // The newest frame, never an older waiting one. The camera hands a frame to every
            // output before it makes the next, so when the fast output has frame j, the frame
            // the fast output got before j is already waiting for the slow one. When the slow
            // delegate returns (at least 150 ms after it was called), it must get that frame or
            // a newer one.
            for (previous, next) in zip(slowFrames, slowFrames.dropFirst()) {
                let seenBeforeReturn = fastFrames.filter { $0.arrival < previous.arrival + busy }
                guard seenBeforeReturn.count >= 2 else { continue }
                let waiting = seenBeforeReturn[seenBeforeReturn.count - 2].sequenceNumber
                #expect(next.sequenceNumber >= waiting, "after frame \(previous.sequenceNumber) the slow output got \(next.sequenceNumber), though \(waiting) was waiting")
            }
            // Capture went on while the slow delegate was busy: the fast output received frames
            // the camera finished only after the slow delegate had been called, before it returned.
            let keptPace = zip(slowFrames, slowFrames.dropFirst()).filter { previous, _ in
                fastFrames.contains { frame in
                    let captured = (frame.sample.presentationTimeStamp + frame.sample.duration).nanoseconds ?? .max
                    return captured > previous.arrival && frame.arrival < previous.arrival + busy
                }
            }
            #expect(!keptPace.isEmpty, "the fast output got no frame captured during any of the slow delegate's calls")
        }

        @Test func boundedQueueDropsAsOutOfBuffers() async throws {
            let camera = try makeTestCamera("out of buffers")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            output.alwaysDiscardsLateVideoFrames = false
            #expect(!output.alwaysDiscardsLateVideoFrames)
            let slow = SampleRecorder(label: "tests.bounded", delay: .milliseconds(150))
            slow.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])

            try await session.start()
            defer { try? session.stopRunning() }
            // The queue holds 8 frames; at 30 fps against 150 ms per frame it is full after
            // about 0.4 s, and from then on incoming frames are refused (reported once the frames
            // queued before them have been delivered).
            #expect(await slow.drops.wait(timeout: .seconds(30)) { $0.contains { $0.reason == .outOfBuffers } })
            try session.stopRunning()

            let log = slow.log.items
            let delivered = log.compactMap { event -> ReceivedSample? in if case .sample(let s) = event { s } else { nil } }
            let drops = log.compactMap { event -> DroppedFrame? in if case .drop(let d) = event { d } else { nil } }
            #expect(drops.contains { $0.reason == .outOfBuffers })
            #expect(!drops.contains { $0.reason == .frameWasLate }, "late frames are kept, not replaced")
            #expect(output.statistics.dropped >= drops.reduce(0) { $0 + $1.count })
            // Kept oldest first: a frame is refused only when 8 older ones are waiting, so at
            // least 8 deliveries come before the first refusal is reported.
            let firstRefusal = try #require(log.firstIndex { if case .drop(let d) = $0 { d.reason == .outOfBuffers } else { false } })
            let deliveredBefore = log[..<firstRefusal].filter { if case .sample = $0 { true } else { false } }.count
            #expect(deliveredBefore >= CaptureVideoDataOutput.lateFrameQueueDepth, "\(deliveredBefore) deliveries before the first refusal")
            Self.expectPromisesKept(log, delivered: delivered, drops: drops, frameDuration: frameDuration(fps: 30))
        }

        /// Turning `alwaysDiscardsLateVideoFrames` on while frames wait in the deeper queue: the
        /// waiting frames are discarded, and each of them must still be reported.
        @Test func switchingToDiscardLateFramesReportsEveryDiscardedFrame() async throws {
            let camera = try makeTestCamera("switch policy")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            output.alwaysDiscardsLateVideoFrames = false
            let slow = SampleRecorder(label: "tests.switch", delay: .milliseconds(150))
            slow.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            // A refused frame means the 8-frame queue is full.
            #expect(await slow.drops.wait(timeout: .seconds(30)) { $0.contains { $0.reason == .outOfBuffers } })
            output.alwaysDiscardsLateVideoFrames = true
            let count = slow.samples.count
            #expect(await slow.samples.wait(forCount: count + 4, timeout: .seconds(30)))
            try session.stopRunning()

            let log = slow.log.items
            let delivered = log.compactMap { event -> ReceivedSample? in if case .sample(let s) = event { s } else { nil } }
            let drops = log.compactMap { event -> DroppedFrame? in if case .drop(let d) = event { d } else { nil } }
            #expect(drops.contains { $0.reason == .frameWasLate })
            Self.expectPromisesKept(log, delivered: delivered, drops: drops, frameDuration: frameDuration(fps: 30))
            let statistics = output.statistics
            let lastSequence = try #require(delivered.last?.sequenceNumber)
            let firstSequence = try #require(delivered.first?.sequenceNumber)
            let expectedDropped = Int(lastSequence - firstSequence + 1) - delivered.count
            #expect(statistics.dropped >= expectedDropped, "statistics count \(statistics.dropped) drops, \(expectedDropped) frames were not delivered")
        }

        @Test func slowStreamReaderMissesFramesWithoutSlowingCapture() async throws {
            let camera = try makeTestCamera("slow stream")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let fastOutput = CaptureVideoDataOutput()
            let fast = SampleRecorder(label: "tests.fastForStream")
            fast.attach(to: fastOutput)
            let session = try makeSession(camera: camera, outputs: [output, fastOutput])
            let stream = output.sampleBuffers
            let received = Recorder<UInt64>()
            let reader = Task {
                for await sample in stream {
                    received.append(sample.sequenceNumber)
                    try? await Task.sleep(for: .milliseconds(150))   // the slow reader under test
                }
            }
            defer { reader.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await received.wait(forCount: 6, timeout: .seconds(30)))
            let sequence = received.items
            let statistics = output.statistics
            try session.stopRunning()
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 > $0 }, "in order: \(sequence)")
            #expect(zip(sequence, sequence.dropFirst()).contains { $1 > $0 + 1 }, "a slow reader only gets the newest frames")
            // Missed frames are counted: one pushed out of the stream's buffer is counted once
            // its successor has been handed over, so every frame missed before the last but one
            // received is counted by the time the last was.
            try #require(sequence.count >= 2)
            let secondLast = sequence[sequence.count - 2]
            let missed = Int(secondLast - sequence[0] + 1) - (sequence.count - 1)
            #expect(statistics.dropped >= missed, "\(missed) frames missed, \(statistics.dropped) counted dropped")
            // The other output is not slowed down: everything accounted for, timestamps exact.
            #expect(fast.accounting.isComplete, "\(fast.accounting)")
            let times = FrameTimestamps(fast.samples.items, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
        }
    }
}
