import Foundation
import Testing
@testable import CaptureKit

/// What the movie output says about its video codecs: every codec FFmpeg can encode
/// (`availableVideoCodecs`, checked against `ffmpeg -encoders`), and the ones a live recording
/// keeps up with (`availableVideoCodecTypes`), each described honestly — software encoders,
/// HEVC too dear for real time.
@Suite("VideoCodecList", .excludable)
struct VideoCodecListTests {
    @Test func eachCodecSaysWhatEncodesItAndWhatItCosts() {
        let h264 = MovieOutputSettings.VideoCodec.h264.info
        let hevc = MovieOutputSettings.VideoCodec.hevc.info
        let mjpeg = MovieOutputSettings.VideoCodec.mjpeg.info
        #expect([h264.encoderName, hevc.encoderName, mjpeg.encoderName] == ["libx264", "libx265", "mjpeg"])
        #expect([h264, hevc, mjpeg].allSatisfy { !$0.isHardwareAccelerated }, "every encoder CaptureKit opens is software")
        #expect(h264.relativeCost == 1 && mjpeg.relativeCost < 1 && hevc.relativeCost > 1)
        #expect(h264.isSuitedToRealTimeRecording && mjpeg.isSuitedToRealTimeRecording)
        #expect(!hevc.isSuitedToRealTimeRecording, "software HEVC cannot keep up with 1080p30 on a small machine")
        #expect(MovieOutputSettings.VideoCodec.allCases.map(\.info.codec) == MovieOutputSettings.VideoCodec.allCases)
    }

    @Test(.tags(.childProcess)) func theListsAreWhatFFmpegEncodesAndWhatKeepsUp() throws {
        let output = CaptureMovieFileOutput()
        // ffmpeg's own list of encoders (" V....D libx264 …" lines), from the same libraries.
        let listing = String(decoding: try FileFixtures.run("ffmpeg", ["-hide_banner", "-encoders"]), as: UTF8.self)
        let encoders = Set(listing.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            return fields.count >= 2 && fields[0].hasPrefix("V") ? String(fields[1]) : nil
        })
        let expected = MovieOutputSettings.VideoCodec.allCases.filter { encoders.contains($0.info.encoderName) }
        #expect(output.availableVideoCodecs == expected, "ffmpeg -encoders has \(expected)")
        #expect(output.availableVideoCodecs.allSatisfy { $0.info.isAvailable })
        // The real-time list: H.264 first (the default codec), then MJPEG; never HEVC in software.
        #expect(output.availableVideoCodecTypes == expected.filter { $0 != .hevc })
        #expect(output.availableVideoCodecTypes.first == MovieOutputSettings().videoCodec)
        #expect(Set(output.availableVideoCodecTypes).isSubset(of: Set(output.availableVideoCodecs)))
    }
}
