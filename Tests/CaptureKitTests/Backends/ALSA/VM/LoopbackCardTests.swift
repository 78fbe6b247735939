import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.ALSAIntegrationTests {
    /// Discovery, capture and overrun recovery on snd-aloop's loopback card.
    @Suite(.serialized) struct LoopbackCardTests {
        static let mono = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)

        /// The loopback's capture side, found by discovery, set to 48 kHz mono s16 (the format
        /// the player plays: the driver makes both sides agree).
        static func microphone() throws -> CaptureDevice {
            let device = try #require(CaptureDevice.allDevices.first { $0.uniqueID == "alsa:" + LoopbackPlayer.capturePCM },
                                      "no \(LoopbackPlayer.capturePCM) among \(CaptureDevice.allDevices.map(\.uniqueID))")
            let match = try #require(device.formats.first { $0.audioFormat == mono }, "\(device.formats)")
            try device.lockForConfiguration()
            try device.setActiveFormat(match)
            device.unlockForConfiguration()
            return device
        }

        @Test func withoutASoundServerTheLoopbackCardIsListedAsMicrophones() throws {
            #expect(!SoundServerAddress.current().isAnswering, "the guest runs no sound server")
            let loopback = CaptureDevice.allDevices.filter { $0.uniqueID.hasPrefix("alsa:hw:CARD=Loopback,") }
            // snd-aloop has two PCM devices, each with a capture side.
            #expect(Set(loopback.map(\.uniqueID)) == ["alsa:hw:CARD=Loopback,DEV=0", "alsa:hw:CARD=Loopback,DEV=1"],
                    "\(CaptureDevice.allDevices.map(\.uniqueID))")
            for device in loopback {
                #expect(device.deviceType == .microphone)
                #expect(device.hasMediaType(.audio))
                #expect(device.localizedName.hasPrefix("Loopback"), "\(device.localizedName)")
                #expect(device.formats.contains { $0.audioFormat == Self.mono }, "\(device.uniqueID): \(device.formats)")
            }
        }

        @Test func aToneAplayPlaysIsCapturedWithItsFrequencyAndLevel() async throws {
            let tone = try FileFixtures.file("alsa-loopback-tone-1000hz.raw") { path in
                try ALSAFixtures.requireTool("sox")
                try FileFixtures.run("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", path,
                                             "synth", "6", "sine", "1000", "vol", String(format: "%.6f", pow(10, -6.0 / 20))])
            }
            let player = try LoopbackPlayer(file: tone)
            defer { player.stop() }
            let (session, _, recorder) = try ALSACapture.makeSession(try Self.microphone())
            try await session.start()
            defer { try? session.stopRunning() }
            // A second of sound; the deadline is not a rate.
            #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.reduce(0.0) { $0 + $1.sample.duration.seconds } >= 1 })
            try await session.stop()
            let buffers = recorder.samples.items
            // Under load the driver may overrun; whatever it lost is reported, in 10 ms periods
            // whose timestamps jump by the lost audio (a period's rounding at most).
            let accounting = AudioAccounting(recorder.log.items, slack: MediaTime(value: 1, timescale: 100))
            #expect(accounting.isComplete, "\(accounting)")
            #expect(Set(buffers.compactMap(\.sample.audioBuffer).map(\.frameCount)) == [480], "10 ms periods")
            // Each period was captured before it was delivered (its end is derived from the
            // driver's sample clock, to within a few milliseconds).
            let early = buffers.filter { Double($0.arrival) / 1e9 < ($0.sample.presentationTimeStamp + $0.sample.duration).seconds - 0.005 }
            #expect(early.isEmpty, "periods delivered before their end was captured: \(early.prefix(3).map(\.sample.presentationTimeStamp.seconds))")
            // The tone, in the longest run of periods that join without a gap.
            var runs: [[AudioBuffer]] = [[]]
            for (index, received) in buffers.enumerated() {
                guard let audio = received.sample.audioBuffer else { continue }
                if index > 0, received.sample.presentationTimeStamp != buffers[index - 1].sample.presentationTimeStamp + buffers[index - 1].sample.duration {
                    runs.append([])
                }
                runs[runs.count - 1].append(audio)
            }
            let longest = runs.max { $0.count < $1.count } ?? []
            #expect(longest.count >= 20, "the longest gap-free run is \(longest.count) periods: \(accounting)")
            let analysis = ToneAnalyzer(buffers: longest)
            #expect(abs(analysis.dominantFrequency - 1000) <= 2, "dominant \(analysis.dominantFrequency) Hz")
            #expect(abs(analysis.peakLevel + 6) < 0.5, "peak \(analysis.peakLevel) dBFS")
            #expect(abs(analysis.rmsLevel + 6) < 0.5, "RMS \(analysis.rmsLevel) dBFS")
        }

        @Test func anOverrunIsRecoveredCountedReportedAndTimedByTheLostAudio() async throws {
            let player = try LoopbackPlayer(file: try LoopbackPlayer.counterFile(seconds: 8))
            defer { player.stop() }
            // 400 ms without reading overflows the 100 ms buffer: the driver stops the capture
            // side with an xrun (-EPIPE), and what it played meanwhile is lost.
            let stall = try await StalledCapture.run(pcm: LoopbackPlayer.capturePCM, stallMilliseconds: 400, expectDrop: true)
            #expect(stall.xruns > 0, "the kernel reported no xrun")
            #expect(!stall.drops.isEmpty && stall.drops.allSatisfy { $0.reason == .discontinuity }, "\(stall.drops)")

            // The player's counter says which frames were captured: consecutive everywhere except
            // across the one gap, whose timestamp jump must be the lost audio's duration.
            var lostRuns: [Int] = []
            var previousLast: Int?
            var previousEnd: MediaTime?
            var brokenRuns = 0
            for received in stall.buffers {
                let buffer = try #require(received.sample.audioBuffer)
                let counter = buffer.floatSamples().map { Int(($0 * 32_768).rounded()) & 0xFFFF }
                brokenRuns += zip(counter, counter.dropFirst()).filter { ($1 - $0) & 0xFFFF != 1 }.count
                if let last = previousLast, let end = previousEnd, let first = counter.first {
                    let lost = (first - last - 1) & 0xFFFF
                    let jump = (received.sample.presentationTimeStamp - end).seconds
                    if lost != 0 || jump != 0 {
                        lostRuns.append(lost)
                        #expect(abs(jump - Double(lost) / 48_000) <= 0.02,
                                "timestamps jump \(jump) s over \(lost) lost frames (\(Double(lost) / 48_000) s)")
                    }
                }
                previousLast = counter.last
                previousEnd = received.sample.presentationTimeStamp + received.sample.duration
            }
            #expect(brokenRuns == 0, "frames missing inside \(brokenRuns) buffers")
            // The stall's gap is there (a loaded machine may add overruns of its own: each one
            // is checked like it), and every timestamp gap is a gap in the counter.
            #expect(lostRuns.contains { $0 > 48_000 / 5 && $0 < 48_000 }, "lost \(lostRuns) frames for a 400 ms stall")
            #expect(stall.gaps.count == lostRuns.count, "timestamp gaps \(stall.gaps), counter gaps \(lostRuns)")
            // CaptureKit's own count (from the clock) agrees with the counter to within two
            // periods a gap, and all of it is reported.
            #expect(abs(stall.lostFrames - lostRuns.reduce(0, +)) <= 960 * max(1, lostRuns.count),
                    "counted \(stall.lostFrames) lost frames, the audio says \(lostRuns)")
            let reported = stall.drops.reduce(0) { $0 + $1.count }
            #expect(reported * 480 >= stall.lostFrames && reported * 480 < stall.lostFrames + 480 * max(1, lostRuns.count),
                    "\(reported) periods reported for \(stall.lostFrames) lost frames in \(lostRuns.count) gaps")
        }
    }
}
