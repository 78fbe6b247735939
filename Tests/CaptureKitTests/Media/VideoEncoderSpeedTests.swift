import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// The faster encoders a live recording falls back to, with the real libx264: they write the
/// configured preset's stream headers, and one track holds frames of two encoders one after
/// the other, which FFmpeg decodes without an error.
@Suite("VideoEncoderSpeed")
struct VideoEncoderSpeedTests {
    private let settings = MovieOutputSettings()

    private func encoder(_ speed: VideoEncoder.Speed) throws -> VideoEncoder {
        try VideoEncoder(codec: .h264, width: 320, height: 240, sourceFormat: .yuv420p, frameDuration: MediaTime(value: 1, timescale: 30),
                         settings: settings, keyframeInterval: MediaTime(value: 1, timescale: 1), globalHeader: true, speed: speed)
    }

    @Test func everyFallbackWritesTheConfiguredPresetsHeaders() throws {
        let configured = try encoder(.configured(settings, live: true))
        #expect(configured.parameterSets.count == 2, "an SPS and a PPS")
        let fallbacks = VideoEncoder.Speed.fallbacks(for: settings)
        #expect(fallbacks.map(\.preset) == [.superfast, .ultrafast])
        for speed in fallbacks {
            #expect(try encoder(speed).parameterSets == configured.parameterSets, "\(speed)")
        }
        // Without the kept options ultrafast writes other headers, so the check can fail.
        #expect(try encoder(VideoEncoder.Speed(preset: .ultrafast)).parameterSets != configured.parameterSets)
    }

    @Test func theLiveSpeedAsksX264ForAShortLookahead() {
        let live = VideoEncoder.Speed.configured(settings, live: true)
        #expect(live.x264Parameters(framesPerSecond: 30) == "sync-lookahead=0:rc-lookahead=6")
        #expect(live.x264Parameters(framesPerSecond: 5) == "sync-lookahead=0:rc-lookahead=3")
        #expect(VideoEncoder.Speed.configured(settings).x264Parameters(framesPerSecond: 30) == nil)
        // Zero latency (a stream, a pre-roll ring) keeps x264's tune: no lookahead at all.
        var zero = live
        zero.zeroLatency = true
        #expect(zero.x264Parameters(framesPerSecond: 30) == nil)
    }

    @Test(arguments: [MovieMuxer.Container.mp4, .mkv])
    func oneTrackHoldsTwoEncodersOneAfterTheOther(container: MovieMuxer.Container) throws {
        let url = MovieFiles.path("switched", container.rawValue)
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try encoder(.configured(settings, live: true))
        let muxer = try MovieMuxer(path: url.path, container: container)
        try muxer.addVideo(first, rotation: 0, mirrored: false)
        try muxer.start(metadata: MovieMetadata(), startDate: Date(), fragmentInterval: MediaTime(value: 125_000, timescale: 1_000_000))
        let frame = try PixelBuffer(width: 320, height: 240, pixelFormat: .yuv420p)
        var pts: Int64 = 0
        func feed(_ encoder: VideoEncoder, frames: Int) throws {
            for index in 0..<frames {
                for plane in 0..<frame.planeCount {
                    frame.withUnsafeMutableBytes(ofPlane: plane) { bytes in
                        for offset in stride(from: 0, to: bytes.count, by: 7) { bytes[offset] = UInt8(truncatingIfNeeded: offset / 320 + index * 9 + plane * 50) }
                    }
                }
                try encoder.encode(frame, pts: pts, duration: 3000, write: muxer.write)
                pts += 3000
            }
            try encoder.encode(nil, pts: 0, duration: 0, write: muxer.write)
        }
        // Frames 0–29 at veryfast, then 30–59 at ultrafast (with B-frames both: the second
        // encoder's first decode times reach back past the first one's last).
        try feed(first, frames: 30)
        try feed(try encoder(VideoEncoder.Speed.fallbacks(for: settings)[1]), frames: 30)
        try muxer.finish()

        let timeline = try MovieTimeline(url.path, frameDuration: MediaTime(value: 1, timescale: 30))
        #expect(timeline.frames == 60, "\(timeline)")
        #expect(timeline.isExact, "every frame at its own time: \(timeline)")
        try FileFixtures.run("ffmpeg", ["-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
    }
}
