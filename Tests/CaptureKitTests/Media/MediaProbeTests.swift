import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// `MediaFileInfo`, checked against what ffprobe says about the same files (made by ffmpeg).
@Suite("MediaProbe", .timeLimit(.minutes(2)), .tags(.childProcess), .excludable)
struct MediaProbeTests {
    @Test func mp4StreamsAndDuration() throws {
        let url = try FileFixtures.mp4()
        let info = try MediaFileInfo(contentsOf: url)
        #expect(info.path == url.path)
        #expect(info.container.split(separator: ",").contains("mp4"))
        #expect(info.containerDescription == "QuickTime / MOV")
        #expect(info.streams.count == 2)
        #expect(info.byteCount == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value)

        let video = try #require(info.videoStream)
        #expect(video.kind == .video && video.index == 0)
        #expect(video.codec == "h264")
        #expect(video.width == 320 && video.height == 240)
        #expect(video.pixelFormatName == "yuv420p" && video.pixelFormat == .yuv420p)
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 30))
        #expect(video.frameRate == 30)
        #expect(video.rotation == 0)
        let probed = try FileFixtures.ffprobe(url, stream: "v:0", entries: "nb_read_frames,codec_name")
        #expect(video.frameCount == Int(probed["nb_read_frames"] ?? ""))
        #expect(video.frameCount == 60)

        let audio = try #require(info.audioStream)
        #expect(audio.kind == .audio && audio.codec == "aac")
        #expect(audio.sampleRate == 48_000 && audio.channelCount == 1 && audio.channelLayout == "mono")
        #expect(audio.sampleFormatName == "fltp")
        #expect(audio.width == nil && audio.frameDuration == nil)

        let duration = try #require(info.duration?.seconds)
        let reference = try #require(try FileFixtures.ffprobeDuration(url))
        #expect(abs(duration - reference) <= 1.0 / 30, "\(duration) s, ffprobe says \(reference) s")
        #expect(abs(duration - 2) <= 1.0 / 30)
    }

    @Test func matroskaFramesAreCountedWhenTheContainerDoesNotSay() throws {
        let url = try FileFixtures.mkv()
        let info = try MediaFileInfo(contentsOf: url)
        #expect(info.container.hasPrefix("matroska"))
        let video = try #require(info.videoStream)
        let probed = try FileFixtures.ffprobe(url, stream: "v:0", entries: "nb_frames,nb_read_frames")
        #expect(probed["nb_frames"] == "N/A", "the container really does not say")
        #expect(video.frameCount == Int(probed["nb_read_frames"] ?? ""))
        #expect(video.frameCount == 60)
        // The stream duration is measured from its packets when the container omits it.
        let streamDuration = try #require(video.duration?.seconds)
        #expect(abs(streamDuration - 2) <= 1.0 / 30)
        let audio = try #require(info.audioStream)
        #expect(audio.codec == "pcm_s16le" && audio.sampleFormatName == "s16")
        #expect(abs((info.duration?.seconds ?? 0) - (try FileFixtures.ffprobeDuration(url) ?? -1)) <= 1.0 / 30)

        // Without counting, the count stays unknown rather than guessed.
        let quick = try MediaFileInfo(contentsOf: url, countingFrames: false)
        #expect(quick.videoStream?.frameCount == nil)
        #expect(quick.videoStream?.width == 320)
    }

    @Test func rotationComesFromTheDisplayMatrix() throws {
        let url = try FileFixtures.rotated()
        let video = try #require(try MediaFileInfo(contentsOf: url).videoStream)
        #expect(video.rotation == 90)
        // ffprobe reports the same matrix the same way (it may say -270 for 90).
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                                    "-of", "csv=p=0", url.path])
        let reported = try #require(Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(((reported % 360) + 360) % 360 == video.rotation)
        #expect(try MediaFileInfo(contentsOf: FileFixtures.short()).videoStream?.rotation == 0)
    }

    @Test func tagsOfFileAndStreams() throws {
        let info = try MediaFileInfo(contentsOf: FileFixtures.short())
        #expect(info.metadata["title"] == "Short Clip")
        #expect(info.metadata["encoder"]?.hasPrefix("Lavf") == true)
        #expect(info.audioStream == nil)
        #expect(info.videoStream?.metadata["handler_name"] == "VideoHandler")
        #expect(info.videoStream?.frameCount == 15)
    }

    @Test func audioOnlyFile() throws {
        let info = try MediaFileInfo(contentsOf: FileFixtures.audioOnly())
        #expect(info.videoStream == nil)
        #expect(info.streams.map(\.kind) == [.audio])
        #expect(info.audioStream?.sampleRate == 48_000)
    }

    @Test func errorsNameTheFile() throws {
        let missing = FileFixtures.directory.appendingPathComponent("absent.mkv")
        let notFound = #expect(throws: CaptureError.self) { try MediaFileInfo(contentsOf: missing) }
        #expect(notFound?.code == .fileError && notFound?.errno == ENOENT && notFound?.path == missing.path)

        let noise = try FileFixtures.noise()
        let garbage = #expect(throws: CaptureError.self) { try MediaFileInfo(contentsOf: noise) }
        #expect(garbage?.code == .unsupportedFile && garbage?.path == noise.path)

        // A truncated MP4 whose index comes first still probes: the index says 60 frames, as
        // ffprobe also reports.
        let truncated = try MediaFileInfo(contentsOf: FileFixtures.truncated())
        #expect(truncated.videoStream?.frameCount == 60)
    }
}
