import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// Movies recorded from the VM's cameras, checked with ffprobe.
    @Suite struct RecordingTests {
        /// Records `seconds` from `device` with `settings` and returns the file and the delegate's calls.
        private func record(_ device: CaptureDevice, to url: URL, seconds: Int64, settings: MovieOutputSettings) async throws -> [RecordingRecorder.Call] {
            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: seconds, timescale: 1)
            let session = try VMCapture.session(device, outputs: [movie])
            let connection = try #require(movie.connection(with: .video))
            movie.setOutputSettings(settings, for: connection)
            try await session.start()
            defer { try? session.stopRunning() }
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let finish = await delegate.finished(timeout: .seconds(60))
            try await session.stop()
            #expect(finish != nil, "the recording never finished")
            return delegate.calls.items
        }

        @Test func recordingFromVividPlays() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.vivid(0))
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 25)
            let url = MovieFiles.path("vivid", "mp4")
            let calls = try await record(device, to: url, seconds: 2, settings: MovieOutputSettings())
            #expect(calls == [.didStart, .willFinish, .didFinish(.maximumDurationReached, usable: true)])
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.codec == "h264")
            let size = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height")
            #expect(size["width"] == "320" && size["height"] == "180", "\(size)")
            // Real time under emulation: allow a few frames lost to a busy machine.
            #expect((40...51).contains(video.frames ?? 0), "frames: \(String(describing: video.frames))")
            #expect(abs(video.duration - 2.0) <= 0.1, "duration \(video.duration)")
        }

        /// MJPEG from the camera goes into an MJPEG movie as it came: no decode, no re-encode.
        @Test func mjpegIsRecordedWithoutReencoding() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.loopbackNode)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "MJPG", width: 640, height: 480))
            let url = MovieFiles.path("loopback", "mov")
            var settings = MovieOutputSettings()
            settings.videoCodec = .mjpeg
            let calls = try await record(device, to: url, seconds: 1, settings: settings)
            #expect(calls.last == .didFinish(.maximumDurationReached, usable: true))
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.video?.codec == "mjpeg")
            #expect((probe.video?.frames ?? 0) >= 10, "frames: \(String(describing: probe.video?.frames))")
            // Every packet is the producer's JPEG, byte for byte. v4l2loopback hands out the
            // first buffer after STREAMON with bytesused = the whole buffer (the JPEG, then stale
            // bytes), so a packet may carry a tail after the JPEG's end; all others are exact.
            let reference = [UInt8](try Data(contentsOf: URL(fileURLWithPath: VMEnvironment.mjpegReference)))
            let sizes = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                                                         "-of", "csv=p=0", url.path]), as: UTF8.self)
                .split(separator: "\n").compactMap { Int($0) }
            let packets = FileFixtures.directory.appendingPathComponent("packets-\(UUID().uuidString.prefix(6)).mjpeg")
            defer { try? FileManager.default.removeItem(at: packets) }
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v:0", "-c", "copy", "-f", "mjpeg", "-y", packets.path])
            let stream = [UInt8](try Data(contentsOf: packets))
            try #require(stream.count == sizes.reduce(0, +), "the copied stream holds every packet")
            var offset = 0
            var different: [Int] = []
            for (index, size) in sizes.enumerated() {
                if size < reference.count || Array(stream[offset..<offset + reference.count]) != reference { different.append(index) }
                offset += size
            }
            #expect(different.isEmpty, "packets that do not start with the producer's JPEG: \(different) of \(sizes.count)")
            #expect(sizes.filter { $0 != reference.count }.count <= 1, "packet sizes \(sizes) vs the JPEG's \(reference.count)")
        }
    }
}
