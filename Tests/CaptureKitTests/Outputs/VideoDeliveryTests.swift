import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Frames arrive at the configured rate, with exact, monotonic timestamps.
    @Suite(.serialized)
    struct VideoDeliveryTests {
        @Test func framesArriveAt30fpsWithExactTimestamps() async throws {
            let camera = try makeTestCamera("30 fps")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 30))

            try await session.start()
            defer { try? session.stopRunning() }
            // About two seconds of frames.
            #expect(await recorder.samples.wait(forCount: 61, timeout: .seconds(15)))
            try session.stopRunning()

            let frames = Array(recorder.samples.items.prefix(61))
            try #require(frames.count == 61)
            let duration = frameDuration(fps: 30)
            for (previous, next) in zip(frames, frames.dropFirst()) {
                #expect(next.sample.presentationTimeStamp > previous.sample.presentationTimeStamp)
                #expect(next.sample.presentationTimeStamp - previous.sample.presentationTimeStamp == duration,
                        "frames \(previous.sequenceNumber) → \(next.sequenceNumber)")
                #expect(next.sequenceNumber == previous.sequenceNumber + 1)
                #expect(next.arrival >= previous.arrival)
            }
            for frame in frames {
                #expect(frame.sample.duration == duration)
                #expect(frame.sample.mediaType == .video)
                #expect(frame.sample.formatDescription == .video(width: 320, height: 240, pixelFormat: .nv12))
            }
            // Arrival rate on the monotonic clock, within ±15 %.
            let elapsed = Double(frames[60].arrival - frames[0].arrival) / 1e9
            let rate = 60 / elapsed
            #expect(rate > 30 * 0.85 && rate < 30 * 1.15, "arrival rate \(rate) fps")
            // Timestamps are on the monotonic clock: a frame is delivered after its capture time
            // (its start plus one frame duration), and not long after on an idle consumer.
            for frame in frames {
                let captured = try #require((frame.sample.presentationTimeStamp + frame.sample.duration).nanoseconds)
                #expect(frame.arrival >= captured - 1_000_000, "delivered before it was captured")
                #expect(frame.arrival - captured < 500_000_000, "latency \(Double(frame.arrival - captured) / 1e6) ms")
            }
            #expect(output.statistics.delivered >= 61)
            #expect(output.statistics.dropped == 0)
            #expect(recorder.drops.count == 0)
        }

        @Test func asyncStreamDeliversFrames() async throws {
            let camera = try makeTestCamera("stream")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let session = try makeSession(camera: camera, outputs: [output])
            let stream = output.sampleBuffers
            let frames = Recorder<SampleBuffer>()
            let reader = Task {
                for await sample in stream {
                    frames.append(sample)
                    if frames.count == 10 { break }
                }
            }
            defer { reader.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await frames.wait(forCount: 10))
            let sequence = frames.items.map(\.sequenceNumber)
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 })
            #expect(frames.items.allSatisfy { $0.pixelBuffer?.width == 320 })
        }

        @Test func disabledConnectionDeliversNothing() async throws {
            let camera = try makeTestCamera("disabled")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let enabledOutput = CaptureVideoDataOutput()
            let disabledOutput = CaptureVideoDataOutput()
            let enabled = SampleRecorder(label: "tests.enabled")
            let disabled = SampleRecorder(label: "tests.disabled")
            enabled.attach(to: enabledOutput)
            disabled.attach(to: disabledOutput)
            let session = try makeSession(camera: camera, outputs: [enabledOutput, disabledOutput])
            try #require(disabledOutput.connection(with: .video)).isEnabled = false
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await enabled.samples.wait(forCount: 10))
            #expect(disabled.samples.count == 0)
        }
    }
}
