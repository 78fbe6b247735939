import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A segmented recording whose microphone is far behind its camera: it delivers 1.5 s
    /// buffers (as a large ALSA period does), so the sound from before a cut reaches the
    /// recording after the cut's keyframe has come out of the encoder. That sound must still
    /// end the segment it belongs to: every segment's sound runs from its first frame to its
    /// end, none missing at a cut.
    @Suite(.tags(.childProcess))
    struct LateSoundSegmentTests {
        @Test func soundLaterThanThePictureEndsTheSegmentItBelongsTo() async throws {
            let folder = FileFixtures.directory.appendingPathComponent("late-sound-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var late = VirtualMicrophoneConfiguration(name: uniqueDeviceName("late mic"))
            late.framesPerBuffer = 72_000
            let microphone = try CaptureDevice.makeVirtualMicrophone(late)
            defer { CaptureDevice.removeVirtualDevice(microphone) }
            let camera = try makeTestCamera("late sound") { $0.frameRates = [30] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let movie = CaptureMovieFileOutput()
            let session = CaptureSession()
            try session.configure {
                try session.setSessionPreset(.low)
                try session.addInput(CaptureDeviceInput(device: camera))
                try session.addInput(CaptureDeviceInput(device: microphone))
                try session.addOutput(movie)
            }
            let events = Recorder<MovieSegmentEvent>()
            let stream = movie.segmentEvents
            let listener = Task { for await event in stream { events.append(event) } }
            defer { listener.cancel() }
            var segmentation = MovieSegmentation()
            segmentation.duration = MediaTime(value: 2, timescale: 1)
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(toFolder: folder, segmentation: segmentation)
            let finished: @Sendable ([MovieSegmentEvent]) -> [MovieSegment] = { items in
                items.compactMap { if case .finished(let segment) = $0 { segment } else { nil } }
            }
            // Three whole segments after the first (a deadline, not a rate).
            #expect(await events.wait(timeout: .seconds(60)) { finished($0).count >= 4 })
            let recorded = await movie.finishRecording()
            try await session.stop()
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            _ = await events.wait(timeout: .seconds(10)) { items in
                finished(items).count == items.count { if case .started = $0 { true } else { false } }
            }
            let segments = finished(events.items)
            #expect(!events.items.contains { if case .failed = $0 { true } else { false } }, "\(events.items)")

            // A segment's sound starts within one AAC packet (1024 samples at 48 kHz) of its
            // first frame and ends within one of its end; the first segment also holds the
            // encoder's priming before its first frame, and the last ends where the recording
            // was stopped, so only the ones between are checked.
            let packet = 1024.0 / 48_000
            for segment in segments.dropFirst().dropLast() {
                let timeline = try MovieTimeline(segment.url.path, frameDuration: frameDuration(fps: 30))
                let name = segment.url.lastPathComponent
                let (start, end) = (try #require(timeline.audioStart, "no sound in \(name)"), try #require(timeline.audioEnd))
                #expect(start >= -0.001 && start < packet + 0.001, "\(name): sound starts at \(start) s")
                #expect(abs(end - segment.duration.seconds) < packet + 0.001,
                        "\(name): sound ends at \(end) s, the segment at \(segment.duration.seconds) s")
            }
        }
    }
}
