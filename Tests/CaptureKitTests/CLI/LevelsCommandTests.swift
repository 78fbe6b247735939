import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// `capture levels` as a user runs it, on a daemon-less ALSA microphone. The durations are
    /// what the command meters for, counted from the session's start: long enough that a loaded
    /// machine's late first buffers still leave meters to read.
    @Suite(.serialized, .tags(.childProcess))
    struct LevelsCommandTests {
        /// Runs `capture`, which inherits ALSA_CONFIG_PATH (it defines the tone PCM).
        func runCapture(_ arguments: [String]) throws -> CaptureTool.Result { try CaptureTool.run(arguments) }

        @Test func metersOfAnALSAToneReadItsLevel() throws {
            let pcm = try ALSAFixtures.toneMicrophone(frequency: 1000, level: -6)
            let result = try runCapture(["levels", "--audio-device", "alsa:\(pcm)", "--duration", "2s", "--json"])
            #expect(result.status == 0, "\(result.errors)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let channels = try #require(report["channels"] as? [[String: Any]])
            try #require(channels.count == 1)
            let average = try #require(channels[0]["averagePowerLevel"] as? Double)
            let peak = try #require(channels[0]["peakHoldLevel"] as? Double)
            #expect(abs(average + 6) < 0.5, "average \(average)")
            #expect(abs(peak + 6) < 0.5, "peak \(peak)")
        }

        @Test func textMetersShowOneBarPerChannel() throws {
            let result = try runCapture(["levels", "--duration", "2s"])
            #expect(result.status == 0, "\(result.errors)")
            let meters = result.output.split(separator: "\n").filter { $0.hasPrefix("ch1 ") }
            #expect(!meters.isEmpty, "\(result.output)")
            // The default virtual microphone: −12 dBFS, so the 40-column bar for −60...0 dB fills
            // to column 32 (31 when the average rounds just below), with the peak mark there.
            for line in meters {
                let bar = line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
                #expect(bar.count == 40, "\(line)")
                #expect((31...32).contains(bar.filter { $0 == "#" }.count), "\(line)")
                #expect(bar.filter { $0 == "|" }.count == 1, "\(line)")
                #expect(line.contains("peak   -12.0 dB"), "\(line)")
            }
        }

        @Test func anUnknownALSADeviceFailsWithUnavailable() throws {
            let result = try runCapture(["levels", "--audio-device", "alsa:capturekit_missing", "--duration", "1s"])
            #expect(result.status == 69, "EX_UNAVAILABLE")
            #expect(result.errors.contains("capturekit_missing"))
        }
    }
}
