import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.ALSAIntegrationTests {
    /// A sound card lost and back mid-recording: snd-aloop's driver unbound from its device (the
    /// card disconnects under the open PCM, as a USB microphone's does when it is pulled out)
    /// and bound again.
    @Suite struct CardReturnTests {
        /// The session resumes by itself within a second of the card's return; the gap is a
        /// reported loss on one timeline; the movie (`.continueRecording`, PCM so the samples
        /// stay exact) holds what was played before and after, each at its capture time, with
        /// silence between.
        @Test func loopbackMicrophoneRecordingResumesAfterTheCardReturns() async throws {
            let device = try LoopbackCardTests.microphone()
            let counter = try LoopbackPlayer.counterFile(seconds: 20)
            var player = try LoopbackPlayer(file: counter)
            defer { player.stop() }
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let (session, _, recorder) = try ALSACapture.makeSession(device, outputs: [movie])
            var settings = MovieOutputSettings()
            settings.audioCodec = .pcm
            movie.setOutputSettings(settings, for: try #require(movie.connections.first { $0.mediaType == .audio }))
            let events = EventRecorder(session)
            let url = MovieFiles.path("alsa-card-return", "mov")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await recorder.samples.wait(timeout: .seconds(30)) { Self.seconds($0) >= 1 }, "a second before the unplug")

            // The kernel finishes the unbind once every handle of the card is closed: the
            // player's and CaptureKit's (which lets go when it sees the loss).
            player.stop()
            let driver = KernelDriver.loopbackSoundCard
            let unplugged = MonotonicClock.nanoseconds()
            try driver.unbind()
            #expect(await events.wait(for: .wasInterrupted(.audioDeviceNotAvailable(deviceID: device.uniqueID)), timeout: .seconds(20)),
                    "events: \(events.events.items)")
            try driver.bind()
            let back = MonotonicClock.nanoseconds()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(20)), "events: \(events.events.items)")
            let ended = MonotonicClock.nanoseconds()
            print("vm alsa return: interruption ended \(Double(ended - back) / 1e6) ms after the card came back")
            #expect(ended - back < 1_000_000_000, "resumed \(Double(ended - back) / 1e9) s after the card came back")
            player = try LoopbackPlayer(file: counter)
            // A second of the restarted player, by capture time (a loaded machine may still be
            // delivering older buffers).
            let playing = MonotonicClock.nanoseconds()
            #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.contains { Self.start($0) >= playing + 1_000_000_000 } },
                    "a second after the return")
            let recorded = await movie.finishRecording()
            try await session.stop()
            player.stop()

            // One timeline: the buffers join exactly except where a loss was reported, and the
            // buffers after the return (by capture time) start after the last one before it.
            let accounting = AudioAccounting(recorder.log.items, slack: ALSAStream.periodDuration)
            #expect(accounting.isComplete, "\(accounting)")
            let all = recorder.samples.items
            let before = all.filter { Self.start($0) + ($0.sample.duration.nanoseconds ?? 0) <= unplugged }
            let after = all.filter { Self.start($0) >= back }
            let lastBefore = try #require(before.last), firstAfter = try #require(after.first)
            #expect(firstAfter.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp + lastBefore.sample.duration)
            #expect(firstAfter.sequenceNumber > lastBefore.sequenceNumber)

            // The file: the last buffer that heard the player before the loss and the first that
            // heard it again are as far apart as their capture times (to within a period), with silence
            // between. (The counter repeats every 65 536 frames, so each buffer may match in
            // several places: one pair must be that far apart.)
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            let decoded = try FileFixtures.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "s16le", "-ac", "1", "-"])
            let file = decoded.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let heard = try #require(after.first { Self.counter(of: $0).contains { $0 != 0 } },
                                     "nothing of the restarted player was captured")
            // (The player stopped just before the unplug: the last buffers before it may be silence.)
            let lastHeard = try #require(before.last { Self.counter(of: $0).contains { $0 != 0 } })
            let lastPlayed = Self.counter(of: lastHeard)
            let endBefore = Self.positions(of: lastPlayed, in: file).map { $0 + lastPlayed.count }
            let startHeard = Self.positions(of: Self.counter(of: heard), in: file)
            let distance = Int(((heard.sample.presentationTimeStamp - lastHeard.sample.presentationTimeStamp - lastHeard.sample.duration).seconds * 48_000).rounded())
            let pair = endBefore.lazy.flatMap { end in startHeard.lazy.map { (end, $0) } }.first { abs($0.1 - $0.0 - distance) <= 480 }
            #expect(pair != nil, "in the file, the buffers before and after the gap are not \(distance) frames apart: ends \(endBefore), starts \(startHeard)")
            if let (end, start) = pair {
                #expect(file[(end + 480)..<max(end + 480, start - 480)].allSatisfy { $0 == 0 }, "the \(start - end) frames between are not silence")
            }
        }

        /// A buffer's samples as the s16 the player played.
        private static func counter(of received: ReceivedSample) -> [Int16] {
            (received.sample.audioBuffer?.floatSamples() ?? []).map { Int16(clamping: Int(($0 * 32_768).rounded())) }
        }

        /// Where `run` starts in `file` (a plain loop: the debug build runs in an emulated VM).
        private static func positions(of run: [Int16], in file: [Int16]) -> [Int] {
            guard !run.isEmpty, run.count <= file.count else { return [] }
            return file.withUnsafeBufferPointer { file in
                run.withUnsafeBufferPointer { run in
                    var found: [Int] = []
                    for start in 0...(file.count - run.count) where file[start] == run[0] {
                        var offset = 1
                        while offset < run.count, file[start + offset] == run[offset] { offset += 1 }
                        if offset == run.count { found.append(start) }
                    }
                    return found
                }
            }
        }

        private static func seconds(_ samples: some Sequence<ReceivedSample>) -> Double {
            samples.reduce(0.0) { $0 + $1.sample.duration.seconds }
        }

        /// When a buffer's first frame was captured, in monotonic nanoseconds.
        private static func start(_ received: ReceivedSample) -> Int64 { received.sample.presentationTimeStamp.nanoseconds ?? 0 }
    }
}
