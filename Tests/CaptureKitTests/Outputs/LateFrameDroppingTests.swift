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

        @Test func slowConsumerGetsNewestFramesAndFastOutputGetsAll() async throws {
            let camera = try makeTestCamera("late frames")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let slowOutput = CaptureVideoDataOutput()
            let fastOutput = CaptureVideoDataOutput()
            #expect(slowOutput.alwaysDiscardsLateVideoFrames, "the default")
            let slow = SampleRecorder(label: "tests.slow", delay: .milliseconds(150))
            let fast = SampleRecorder(label: "tests.fast")
            slow.attach(to: slowOutput)
            fast.attach(to: fastOutput)
            let session = try makeSession(camera: camera, outputs: [slowOutput, fastOutput])

            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await slow.samples.wait(forCount: 8, timeout: .seconds(15)))
            #expect(await fast.samples.wait(forCount: 45, timeout: .seconds(15)))
            try session.stopRunning()

            // The slow consumer: drops reported as late, and every delivered frame is the newest,
            // so sequence numbers jump by about 150 ms / 33 ms.
            let slowFrames = slow.samples.items
            let slowSequence = slowFrames.map(\.sequenceNumber)
            let jumps = zip(slowSequence, slowSequence.dropFirst()).map { $1 - $0 }
            #expect(jumps.allSatisfy { $0 >= 1 })
            #expect(jumps.dropFirst().filter { $0 >= 3 }.count >= jumps.count / 2, "sequence jumps \(jumps)")
            let drops = slow.drops.items
            #expect(!drops.isEmpty)
            #expect(drops.allSatisfy { $0.reason == .frameWasLate }, "reasons \(Set(drops.map(\.reason)))")
            // Consecutive late frames are reported together: a count, and the time of the first.
            #expect(drops.allSatisfy { $0.count >= 1 && $0.presentationTimeStamp.isNumeric }, "odd drops: \(drops)")
            let droppedCount = drops.reduce(0) { $0 + $1.count }
            #expect(droppedCount >= slowFrames.count, "about 3.5 frames are late per delivered frame")
            // Statistics count a drop before the delegate hears of it, and a delivery after the
            // delegate returns, so (read after `drops`, before re-reading the samples):
            let statistics = slowOutput.statistics
            #expect(statistics.dropped >= droppedCount)
            #expect(statistics.delivered <= slow.samples.count)
            #expect(statistics.delivered + 1 >= slowFrames.count)

            // The fast output: every frame, in order, no drops.
            let fastSequence = fast.samples.items.map(\.sequenceNumber)
            #expect(zip(fastSequence, fastSequence.dropFirst()).allSatisfy { $1 == $0 + 1 }, "fast output sequence has gaps")
            #expect(fast.drops.count == 0)
            #expect(fastOutput.statistics.dropped == 0)
            // It kept pace with the camera while the slow one was blocked.
            let fastFrames = fast.samples.items
            let elapsed = Double(fastFrames.last!.arrival - fastFrames.first!.arrival) / 1e9
            let rate = Double(fastFrames.count - 1) / elapsed
            #expect(rate > 30 * 0.85 && rate < 30 * 1.15, "fast output rate \(rate) fps")
            // The fast output saw every frame, so it tells which frames the slow one dropped:
            // between its first and last delivery, every frame was either delivered or reported
            // dropped, never both.
            let sequenceAt = Dictionary(fastFrames.map { ($0.sample.presentationTimeStamp, $0.sequenceNumber) }, uniquingKeysWith: { a, _ in a })
            var droppedSequences: [UInt64] = []
            for drop in drops {
                let first = try #require(sequenceAt[drop.presentationTimeStamp], "dropped frame at \(drop.presentationTimeStamp) never reached the fast output")
                droppedSequences += (0..<UInt64(drop.count)).map { first + $0 }
            }
            #expect(Set(droppedSequences).count == droppedSequences.count, "a frame reported dropped twice")
            #expect(Set(droppedSequences).isDisjoint(with: slowSequence), "a frame both dropped and delivered")
            let lastSlow = try #require(slowSequence.last)
            let accountedFor = Set(slowSequence).union(droppedSequences.filter { $0 <= lastSlow })
            #expect(accountedFor == Set(slowSequence[0]...lastSlow), "frames neither delivered nor reported dropped")
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
            // about 0.4 s, and from then on incoming frames are refused.
            #expect(await slow.drops.wait(timeout: .seconds(15)) { $0.count >= 5 })
            try session.stopRunning()

            let drops = slow.drops.items
            #expect(drops.contains { $0.reason == .outOfBuffers })
            #expect(!drops.contains { $0.reason == .frameWasLate }, "late frames are kept, not replaced")
            // Frames are kept, oldest first: the first deliveries are consecutive.
            let sequence = slow.samples.items.map(\.sequenceNumber)
            try #require(sequence.count >= 3)
            #expect(sequence[1] == sequence[0] + 1 && sequence[2] == sequence[1] + 1, "sequence \(sequence)")
            #expect(output.statistics.dropped >= drops.reduce(0) { $0 + $1.count })
            // Samples first, then drops: every drop before a delivered frame is reported before it.
            let delivered = slow.samples.items
            Self.expectEveryFrameAccountedFor(delivered: delivered, drops: slow.drops.items, frameDuration: frameDuration(fps: 30))
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
            #expect(await slow.drops.wait(timeout: .seconds(15)) { $0.contains { $0.reason == .outOfBuffers } })
            output.alwaysDiscardsLateVideoFrames = true
            let count = slow.samples.count
            #expect(await slow.samples.wait(forCount: count + 4, timeout: .seconds(15)))
            try session.stopRunning()

            let delivered = slow.samples.items
            let drops = slow.drops.items
            #expect(drops.contains { $0.reason == .frameWasLate })
            Self.expectEveryFrameAccountedFor(delivered: delivered, drops: drops, frameDuration: frameDuration(fps: 30))
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
            #expect(await received.wait(forCount: 6, timeout: .seconds(15)))
            let sequence = received.items
            #expect(zip(sequence, sequence.dropFirst()).contains { $1 > $0 + 1 }, "a slow reader only gets the newest frames")
            #expect(output.statistics.dropped > 0)
            let fastSequence = fast.samples.items.map(\.sequenceNumber)
            #expect(zip(fastSequence, fastSequence.dropFirst()).allSatisfy { $1 == $0 + 1 })
        }
    }
}
