import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Live recordings with each codec the movie output says keeps up in real time
    /// (`availableVideoCodecTypes`), from a virtual camera at the session's default preset
    /// (1920x1080 at 30 fps) beside two busy loops on a 2-core machine, a debug build. How many
    /// frames the encoder manages is the machine's business; what is checked is the accounting:
    /// every one of the 60 frames the camera produced in the 2 s recording is in the file
    /// (ffprobe decodes and counts them) or counted in `droppedSampleCount`, exactly, and the
    /// frames in the file sit on the camera's frame grid.
    @Suite(.serialized, .tags(.childProcess))
    struct RealTimeCodecRecordingTests {
        private static let frameDuration = MediaTime(value: 1, timescale: 30)

        @Test(arguments: CaptureMovieFileOutput().availableVideoCodecTypes)
        func everyFrameIsInTheFileOrReportedDroppedBesideBusyLoops(codec: MovieOutputSettings.VideoCodec) async throws {
            let hogs = try BusyLoops(count: 2)
            defer { hogs.stop() }
            let camera = try CaptureDevice.makeVirtualCamera(VirtualCameraConfiguration(name: uniqueDeviceName("codec-\(codec.rawValue)")))
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: 2, timescale: 1)
            let session = CaptureSession()
            try session.configure {
                try session.addInput(CaptureDeviceInput(device: camera))
                try session.addOutput(movie)
            }
            #expect(session.sessionPreset == .high, "the default preset")
            #expect((camera.activeFormat.width, camera.activeFormat.height) == (1920, 1080))
            #expect(camera.activeVideoMinFrameDuration == Self.frameDuration)
            var settings = MovieOutputSettings()
            settings.videoCodec = codec
            let connection = try #require(movie.connection(with: .video))
            movie.setOutputSettings(settings, for: connection)

            try await session.start()
            let url = MovieFiles.path("realtime-\(codec.rawValue)", "mov")
            defer { try? FileManager.default.removeItem(at: url) }
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let finish = await delegate.finished(timeout: .seconds(90))
            try await session.stop()
            hogs.stop()
            #expect(finish == .didFinish(.maximumDurationReached, usable: true))
            let clip = try #require(movie.lastRecordedMovie)

            let probed = try FileFixtures.ffprobe(url, stream: "v:0", entries: "codec_name,width,height,nb_read_frames")
            #expect(probed["codec_name"] == (codec == .h264 ? "h264" : codec.rawValue))
            #expect(probed["width"] == "1920" && probed["height"] == "1080")
            let inFile = try #require(probed["nb_read_frames"].flatMap { Int($0) }, "\(probed)")
            #expect(inFile >= 1)
            #expect(clip.videoFrameCount == inFile, "the output wrote \(clip.videoFrameCount) frames, ffprobe decodes \(inFile)")
            // 2 s at 30 fps: 60 frames from the first; each in the file or reported, none twice.
            #expect(inFile + clip.droppedSampleCount == 60,
                    "\(inFile) frames in the file + \(clip.droppedSampleCount) reported dropped, for the 60 the camera produced")
            let timeline = try MovieTimeline(url.path, frameDuration: Self.frameDuration)
            #expect(timeline.isExact, "\(timeline)")
            #expect(timeline.frames == inFile && timeline.span <= 60, "\(timeline)")
        }
    }
}
