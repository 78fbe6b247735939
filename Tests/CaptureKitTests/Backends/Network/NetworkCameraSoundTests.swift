import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A network camera's sound as its microphone, against real servers: FFmpeg publishing a
    /// flash-and-beep picture and sound into nginx-rtmp, and GStreamer's RTSP server playing a
    /// movie of it (RTCP sender reports for each stream). Picture and sound must arrive — and be
    /// recorded — within one frame of each other, as they were sent.
    @Suite(.serialized) struct NetworkCameraSoundTests {
        /// A flash-and-beep source over `scheme` and its URL; `stop` ends it.
        private static func source(_ scheme: String) throws -> (url: String, stop: () -> Void) {
            if scheme == "rtsp" {
                let server = try RTSPCameraServer.start(playing: try FlashAndBeep.movie())
                return (server.url(), server.stop)
            }
            let feed = try RTMPCameraFeed.start(flashingAndBeeping: true)
            return (feed.rtmpURL, feed.stop)
        }

        /// The camera's microphone captures its sound from the camera's connection: its
        /// formats are the stream's, it is one device however often asked for, its buffers are
        /// laid end to end (every gap reported) and none is dated after it was delivered, and every flash of the
        /// picture is within a frame of its beep.
        @Test(arguments: ["rtmp", "rtsp"])
        func aNetworkCamerasSoundIsItsMicrophoneAndKeepsTime(over scheme: String) async throws {
            let (url, stop) = try Self.source(scheme)
            defer { stop() }
            let camera = try CaptureDevice.networkCamera(url: url, options: NetworkCameraTests.quick)
            let microphone = try #require(camera.companionMicrophone)
            #expect(camera.companionMicrophone === microphone)
            #expect(microphone.hasMediaType(.audio) && microphone.deviceType == .network)
            #expect(microphone.uniqueID == camera.uniqueID + "#audio")
            #expect(microphone.formats.compactMap(\.audioFormat).map(\.sampleRate) == [FlashAndBeep.sampleRate, FlashAndBeep.sampleRate])
            #expect(microphone.formats.compactMap(\.audioFormat).allSatisfy { $0.channelCount == 1 })
            #expect(microphone.companionMicrophone == nil)

            let video = CaptureVideoDataOutput()
            video.alwaysDiscardsLateVideoFrames = false
            let pictures = SampleRecorder(label: "tests.network.sound.video")
            pictures.attach(to: video)
            let audio = CaptureAudioDataOutput()
            let sound = SampleRecorder(label: "tests.network.sound.audio")
            sound.attach(to: audio)
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [video, audio])
            try session.addInput(CaptureDeviceInput(device: microphone))
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            // Four beeps after a second of silence each: about five seconds of sound.
            #expect(await sound.samples.wait(timeout: .seconds(60), until: { (items: [ReceivedSample]) in FlashAndBeep.beeps(items.map(\.sample)).count >= 4 }),
                    "sound buffers: \(sound.samples.count); frames: \(pictures.samples.count); events: \(events.events.items)")
            try await session.stop()

            let buffers = sound.samples.items
            let starts = buffers.map { $0.sample.presentationTimeStamp.value }
            let ends = buffers.map { $0.sample.presentationTimeStamp.value + Int64($0.sample.audioBuffer?.frameCount ?? 0) }
            #expect(buffers.allSatisfy { $0.sample.presentationTimeStamp.timescale == Int32(FlashAndBeep.sampleRate) })
            #expect(zip(ends, starts.dropFirst()).allSatisfy { $0 <= $1 }, "no buffer overlaps the one before")
            // Sound the camera did not send, or the output dropped, is a gap in time exactly
            // as long as the gap in sample numbers, and every one was reported.
            let numbers = buffers.map { Int64($0.sequenceNumber) }
            let timeGaps = zip(ends, starts.dropFirst()).map { $1 - $0 }
            let numberGaps = zip(zip(numbers, buffers), numbers.dropFirst()).map { $1 - $0.0 - Int64($0.1.sample.audioBuffer?.frameCount ?? 0) }
            #expect(timeGaps == numberGaps, "gaps in time \(timeGaps.filter { $0 != 0 }), in numbers \(numberGaps.filter { $0 != 0 })")
            let accounting = SampleNumberAccounting(sound.log.items)
            #expect(accounting.isComplete, "\(accounting)")
            #expect(buffers.allSatisfy { ($0.sample.presentationTimeStamp + $0.sample.duration).nanoseconds ?? .max <= $0.arrival },
                    "no sound is dated after it was delivered")
            let flashes = FlashAndBeep.flashes(pictures.samples.items.map(\.sample))
            let beeps = FlashAndBeep.beeps(buffers.map(\.sample))
            let offsets = FlashAndBeep.offsets(flashes: flashes, beeps: beeps)
            let frame = Int64(1_000_000_000 / FlashAndBeep.frameRate)
            #expect(offsets.count >= 3, "flashes \(flashes), beeps \(beeps)")
            #expect(offsets.allSatisfy { abs($0) <= frame }, "picture minus sound, ms: \(offsets.map { Double($0) / 1e6 })")
        }

        /// A movie of the camera with its microphone stores the camera's H.264 as it came and
        /// its sound encoded, and plays with each flash within a frame of its beep (FFmpeg's
        /// own filters find them in the file).
        @Test func aRecordingOfANetworkCameraWithItsSoundKeepsThemTogether() async throws {
            let (url, stop) = try Self.source("rtmp")
            defer { stop() }
            let camera = try CaptureDevice.networkCamera(url: url, options: NetworkCameraTests.quick)
            let microphone = try #require(camera.companionMicrophone)
            let movie = CaptureMovieFileOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [movie])
            try session.addInput(CaptureDeviceInput(device: microphone))
            let file = MovieFiles.path("network-sound", "mp4")
            defer { try? FileManager.default.removeItem(at: file) }
            try await session.start()
            defer { try? session.stopRunning() }
            let video = try #require(movie.connection(with: .video))
            #expect(movie.passesVideoThrough(for: video))
            try movie.startRecording(to: file)
            #expect(await pollUntil(timeout: .seconds(60)) { movie.recordedDuration.seconds >= 5.5 }, "recorded \(movie.recordedDuration.seconds) s")
            let recorded = await movie.finishRecording()
            try await session.stop()
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            let probed = try ProbedMovie.probe(file.path)
            #expect(probed.video?.codec == "h264" && probed.audio?.codec == "aac", "\(probed.streams)")
            #expect(probed.audio?.sampleRate == FlashAndBeep.sampleRate)
            let (flashes, beeps) = try FlashAndBeep.flashesAndBeeps(in: file)
            let offsets = FlashAndBeep.offsets(flashes: flashes, beeps: beeps)
            #expect(offsets.count >= 3, "flashes \(flashes), beeps \(beeps)")
            #expect(offsets.allSatisfy { abs($0) <= Int64(1_000_000_000 / FlashAndBeep.frameRate) },
                    "picture minus sound in the file, ms: \(offsets.map { Double($0) / 1e6 })")
        }

        /// The microphone alone connects by itself and decodes no picture; a camera that sends
        /// no sound has no microphone, and asking for its sound by URL says so.
        @Test func aNetworkCamerasMicrophoneWorksAloneAndASilentCameraHasNone() async throws {
            let (url, stop) = try Self.source("rtsp")
            defer { stop() }
            let camera = try CaptureDevice.networkCamera(url: url, options: NetworkCameraTests.quick)
            let backend = try #require(camera.backend as? NetworkCameraBackend)
            let microphone = try #require(camera.companionMicrophone)
            let audio = CaptureAudioDataOutput()
            let sound = SampleRecorder(label: "tests.network.sound.alone")
            sound.attach(to: audio)
            let session = try makeSession(camera: microphone, outputs: [audio])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await sound.samples.wait(timeout: .seconds(60), until: { (items: [ReceivedSample]) in
                items.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= 2 * FlashAndBeep.sampleRate
            }))
            try await session.stop()
            #expect(backend.decodedFrames.load(ordering: .relaxed) == 0, "no picture was decoded")
            #expect(!FlashAndBeep.beeps(sound.samples.items.map(\.sample)).isEmpty, "two seconds of sound hold a beep after a second's silence")

            let silent = try RTSPCameraServer.start()
            defer { silent.stop() }
            let quiet = try CaptureDevice.networkCamera(url: silent.url(), options: NetworkCameraTests.quick)
            #expect(quiet.companionMicrophone == nil)
            #expect(throws: CaptureError.self) { try CaptureDevice.device(resolving: silent.url(), mediaType: .audio) }
            let resolved = try CaptureDevice.device(resolving: url, mediaType: .audio)
            #expect(resolved.hasMediaType(.audio) && resolved.deviceType == .network)
        }

        /// The camera's encoder dies and comes back: the camera and its microphone go away
        /// together (one interruption), the session's interruption ends once the connection is back,
        /// the sound goes on after a reported gap (sample numbers jump with the time), and the
        /// recording holds sound from both sides.
        @Test func aNetworkCamerasSoundComesBackWithIt() async throws {
            let feed = try RTMPCameraFeed.start(flashingAndBeeping: true)
            defer { feed.stop() }
            let camera = try CaptureDevice.networkCamera(url: feed.rtmpURL, options: NetworkCameraTests.quick)
            let microphone = try #require(camera.companionMicrophone)
            let audio = CaptureAudioDataOutput()
            let sound = SampleRecorder(label: "tests.network.sound.return")
            sound.attach(to: audio)
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [audio, movie])
            try session.addInput(CaptureDeviceInput(device: microphone))
            let events = EventRecorder(session)
            let file = MovieFiles.path("network-sound-return", "mkv")
            defer { try? FileManager.default.removeItem(at: file) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: file)
            #expect(await pollUntil { movie.recordedDuration.seconds >= 2 })
            feed.killPublisher()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID)), timeout: .seconds(20)),
                    "\(events.events.items)")
            let before = try #require(sound.samples.items.last)
            try feed.publish()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)), "\(events.events.items)")
            #expect(await sound.samples.wait(timeout: .seconds(30), until: { (items: [ReceivedSample]) in
                items.filter { $0.sequenceNumber > before.sequenceNumber }.count >= 50
            }))
            #expect(await pollUntil { movie.recordedDuration.seconds >= 6 })
            let recorded = await movie.finishRecording()
            try await session.stop()
            // One interruption for the two devices of the one connection, and one end of it.
            #expect(events.events.items.filter { if case .wasInterrupted = $0 { true } else { false } }.count == 1, "\(events.events.items)")
            #expect(events.events.items.filter { $0 == .interruptionEnded }.count == 1, "\(events.events.items)")
            let after = try #require(sound.samples.items.first { $0.sequenceNumber > before.sequenceNumber })
            let away = after.sample.presentationTimeStamp.value - (before.sample.presentationTimeStamp.value + Int64(before.sample.audioBuffer?.frameCount ?? 0))
            let skipped = Int64(after.sequenceNumber) - Int64(before.sequenceNumber) - Int64(before.sample.audioBuffer?.frameCount ?? 0)
            #expect(away > 0 && away == skipped, "the time away (\(away) samples) is the samples skipped (\(skipped))")
            let accounting = SampleNumberAccounting(sound.log.items)
            #expect(accounting.isComplete, "\(accounting)")
            #expect(recorded.error == nil || recorded.error?.recordingSuccessfullyFinished == true, "\(String(describing: recorded.error))")
            let (_, beeps) = try FlashAndBeep.flashesAndBeeps(in: file)
            let gapStart = Double(recorded.videoGaps.first?.start.seconds ?? 0)
            #expect(beeps.contains { Double($0) / 1e9 < gapStart } && beeps.contains { Double($0) / 1e9 > gapStart },
                    "beeps in the file \(beeps.map { Double($0) / 1e9 }) around the gap at \(gapStart) s")
        }
    }
}
