import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Frames arrive with exact, monotonic timestamps, each accounted for.
    @Suite(.serialized)
    struct VideoDeliveryTests {
        /// Under any load: every frame the camera produced is delivered or reported dropped,
        /// and timestamps are capture times on the monotonic clock, exactly 1/30 s per frame.
        /// (How many are dropped, and how late frames arrive, is the machine's business.)
        @Test func framesAreAccountedForWithExactTimestampsAt30fps() async throws {
            let camera = try makeTestCamera("30 fps")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            #expect(camera.activeVideoMinFrameDuration == frameDuration(fps: 30))

            let started = MonotonicClock.nanoseconds()
            try await session.start()
            defer { try? session.stopRunning() }
            // About two seconds of frames; a deadline, not a rate.
            #expect(await recorder.samples.wait(forCount: 61, timeout: .seconds(30)))
            try session.stopRunning()

            // Read the log before the statistics: a drop is counted before it is reported, a
            // delivery after the delegate returns.
            let accounting = recorder.accounting
            let frames = recorder.samples.items
            let reportedDrops = recorder.drops.items.reduce(0) { $0 + $1.count }
            let statistics = output.statistics
            try #require(frames.count >= 61)
            #expect(accounting.isComplete, "\(accounting)")
            let duration = frameDuration(fps: 30)
            let times = FrameTimestamps(frames, frameDuration: duration)
            #expect(times.isExact, "\(times)")
            for frame in frames {
                #expect(frame.sample.mediaType == .video)
                #expect(frame.sample.formatDescription == .video(width: 320, height: 240, pixelFormat: .nv12))
            }
            // On the monotonic clock: the first frame was captured after the session was asked
            // to start (its time is its start, rounded up to a whole frame), not at some other
            // origin.
            let first = try #require(frames.first?.sample.presentationTimeStamp.nanoseconds)
            #expect(first >= started, "first frame at \(Double(started - first) / 1e6) ms before the start")
            // Everything delivered or dropped is counted.
            #expect(statistics.delivered + 1 >= frames.count)
            #expect(statistics.dropped >= reportedDrops)
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
            #expect(await frames.wait(forCount: 10, timeout: .seconds(30)))
            let received = frames.items
            let statistics = output.statistics
            let sequence = received.map(\.sequenceNumber)
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 })
            #expect(received.allSatisfy { $0.pixelBuffer?.width == 320 })
            // Exact timestamps: as many frame durations apart as sequence numbers.
            let duration = frameDuration(fps: 30)
            for (previous, next) in zip(received, received.dropFirst()) {
                #expect(next.presentationTimeStamp - previous.presentationTimeStamp == duration * Int64(next.sequenceNumber - previous.sequenceNumber),
                        "frames \(previous.sequenceNumber) → \(next.sequenceNumber)")
            }
            // A stream has no drop reports, but what it missed is counted. A frame pushed out of
            // the stream's buffer is counted once its successor has been handed over, so every
            // frame missed before the last but one received is counted by the time the last was.
            try #require(sequence.count >= 2)
            let secondLast = sequence[sequence.count - 2]
            let missed = Int(secondLast - sequence[0] + 1) - (sequence.count - 1)
            #expect(statistics.dropped >= missed, "\(missed) frames missed, \(statistics.dropped) counted dropped")
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
            #expect(await enabled.samples.wait(forCount: 10, timeout: .seconds(30)))
            try session.stopRunning()
            #expect(enabled.accounting.isComplete, "\(enabled.accounting)")
            // Not even drop reports: the disabled connection hears nothing at all.
            #expect(disabled.log.count == 0)
            #expect(disabledOutput.statistics == SampleBufferOutput.Statistics(delivered: 0, dropped: 0))
        }
    }
}
