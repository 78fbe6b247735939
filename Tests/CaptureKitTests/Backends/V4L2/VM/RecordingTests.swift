import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// Movies recorded from the VM's cameras, checked with ffprobe and against a video data
    /// output watching the same frames: under any load, every sequence number the camera
    /// produced over the recording is in the file or reported dropped, and the file keeps the
    /// frames' capture times. How many frames a second of recording holds is the machine's
    /// business (the camera may produce fewer, or skip some), so it is not asserted.
    @Suite struct RecordingTests {
        @Test func recordingFromVividPlays() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.vivid(0))
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 25)
            let url = MovieFiles.path("vivid", "mp4")
            let recording = try await WitnessedRecording.record(device, to: url, seconds: 2, settings: MovieOutputSettings())
            #expect(recording.calls == [.didStart, .willFinish, .didFinish(.maximumDurationReached, usable: true)])
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.codec == "h264")
            let size = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height")
            #expect(size["width"] == "320" && size["height"] == "180", "\(size)")
            let account = recording.account
            #expect(account.isComplete, "\(account)")
            // The recording is as long as its frames, from the first one's capture to the end of
            // the last one's (whatever the device skipped), within the maximum; the file plays
            // to its last frame.
            let recorded = try #require(recording.movie)
            let lastTime = try #require(account.matches.last?.fileTime)
            #expect(abs(recorded.duration.seconds - (lastTime + 0.04)) < 0.001, "recorded \(recorded.duration.seconds) s, last frame at \(lastTime) s")
            #expect(recorded.duration.seconds <= 2, "the maximum duration is 2 s: \(recorded.duration.seconds)")
            #expect(video.duration <= 2.001, "the file plays \(video.duration) s")
            // The file's track should last exactly as long. Known bug outside the camera: when
            // the frames' spacing is irregular (a frame skipped, a kernel timestamp's jitter)
            // the finished MP4's H.264 track can end before its last frame — its packets carry
            // no duration, and the muxer guesses the last one from the decode times.
            withKnownIssue("an irregularly spaced H.264 MP4 track ends before its last frame (no packet durations after defragmenting)",
                           isIntermittent: true) {
                #expect(abs(video.duration - recorded.duration.seconds) < 0.002,
                        "the video track lasts \(video.duration) s, the recording \(recorded.duration.seconds) s, its last frame starts at \(lastTime) s")
            }
        }

        /// MJPEG from the camera goes into an MJPEG movie as it came: no decode, no re-encode.
        @Test func mjpegIsRecordedWithoutReencoding() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.loopbackNode)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "MJPG", width: 640, height: 480))
            let url = MovieFiles.path("loopback", "mov")
            var settings = MovieOutputSettings()
            settings.videoCodec = .mjpeg
            let recording = try await WitnessedRecording.record(device, to: url, seconds: 1, settings: settings)
            #expect(recording.calls.last == .didFinish(.maximumDurationReached, usable: true))
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.video?.codec == "mjpeg")
            // The producer writes about 27 frames a second (a write, then a frame time's sleep),
            // numbered by the loopback. The stream thread decodes each frame it dequeues, which
            // in a debug build under emulation takes a frame time or more, and v4l2loopback (two
            // buffers) skips what a reader is more than two frames behind on: those frames are
            // reported as the device's drops. A second of recording held 8 to 17 frames in the
            // VM, 30 on real hardware; what holds everywhere is the account.
            let account = recording.account
            #expect(account.isComplete, "\(account)")
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
