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
                let sound = try Self.audioSpan(segment.url)
                let name = segment.url.lastPathComponent
                #expect(sound.start >= -0.001 && sound.start < packet + 0.001, "\(name): sound starts at \(sound.start) s")
                #expect(abs(sound.end - segment.duration.seconds) < packet + 0.001,
                        "\(name): sound ends at \(sound.end) s, the segment at \(segment.duration.seconds) s")
            }
        }

        /// The first audio packet's start and the last one's end, in seconds (ffprobe).
        static func audioSpan(_ url: URL) throws -> (start: Double, end: Double) {
            let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time",
                                                        "-of", "csv=p=0", url.path])
            let packets = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> (Double, Double)? in
                let fields = line.split(separator: ",").compactMap { Double($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
            let start = try #require(packets.map(\.0).min(), "no sound in \(url.lastPathComponent)")
            let end = try #require(packets.map { $0.0 + $0.1 }.max())
            return (start, end)
        }
    }
}
