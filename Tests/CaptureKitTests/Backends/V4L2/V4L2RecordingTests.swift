import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// An MJPEG camera recorded as MJPEG: the camera's own JPEGs go into the file unchanged
    /// (checked packet by packet with ffprobe), nothing is encoded again.
    @Suite(.serialized, .tags(.childProcess))
    struct V4L2RecordingTests {
        @Test func mjpegCameraRecordedAsMJPEGStoresTheCamerasJPEGs() async throws {
            let width = 64, height = 48
            let picture = try PixelBuffer(width: width, height: height, pixelFormat: .rgb24)
            picture.withUnsafeMutableBytes(ofPlane: 0) { bytes in
                for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index * 7) }
            }
            let jpeg = Array(try JPEGEncoder.encode(picture, quality: 75, metadata: nil))
            var script = ScriptedV4L2Device.Script()
            script.formats = [ScriptedV4L2Device.FormatEntry(
                description: V4L2FormatDescription(fourCC: .mjpeg, description: "Motion-JPEG", isCompressed: true),
                sizes: [.discrete(width: width, height: height)], intervals: [.discrete(V4L2Fixtures.fraction(1, 30))])]
            script.frames = (0..<300).map { ScriptedV4L2Device.Frame(bytes: jpeg, sequence: UInt32($0)) }
            script.paceNanoseconds = 33_333_333
            let (backend, _) = try V4L2Fixtures.backend(script)
            let camera = CaptureDevice(backend: backend)

            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: 1, timescale: 2)
            let session = CaptureSession()
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.addOutput(movie)
            try session.commitConfiguration()
            var settings = MovieOutputSettings()
            settings.videoCodec = .mjpeg
            for connection in movie.connections { movie.setOutputSettings(settings, for: connection) }
            try await session.start()
            let url = MovieFiles.path("v4l2-mjpeg-passthrough", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let finish = await delegate.finished()
            try await session.stop()
            #expect(finish == .didFinish(.maximumDurationReached, usable: true))

            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.video?.codec == "mjpeg")
            let sizes = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                                                          "-of", "csv=p=0", url.path]), as: UTF8.self)
                .split(separator: "\n").compactMap { Int($0) }
            #expect(sizes.allSatisfy { $0 == jpeg.count }, "every packet is the camera's \(jpeg.count)-byte JPEG: \(sizes)")
            // The camera stamps frame k at its start + k/30 s however late it is read, so the
            // file holds frames 0...14 of the half second, each at its own time; any missing
            // one was reported dropped (the recording ended only when a later frame came).
            let times = try WitnessedRecording.packetTimes(url.path)
            let indices = times.map { Int(($0 * 30).rounded()) }
            #expect(zip(times, indices).allSatisfy { abs($0 - Double($1) / 30) < 0.0005 }, "packet times off the frame grid: \(times)")
            #expect(Set(indices).count == indices.count && indices.allSatisfy { (0..<15).contains($0) }, "frame indices \(indices)")
            let recorded = try #require(movie.lastRecordedMovie)
            #expect(recorded.videoFrameCount == sizes.count, "the output's count is the file's")
            #expect(sizes.count + recorded.droppedSampleCount >= 15,
                    "\(sizes.count) frames in the file + \(recorded.droppedSampleCount) reported dropped for the 15 the camera produced")
        }
    }
}
