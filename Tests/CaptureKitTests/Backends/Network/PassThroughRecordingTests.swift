import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A network camera's H.264 recorded as it came: the packets in the movie are the packets
    /// the server sent — compared, hash by hash, with what `ffmpeg -c copy` (a tool nobody here
    /// wrote) stores from the same stream — the file plays, and settings can still ask for an
    /// encode.
    @Suite(.serialized) struct PassThroughRecordingTests {
        /// Each packet's MD5 and key flag in the file's video track, in decode order.
        private static func packets(_ url: URL) throws -> [(hash: String, key: Bool)] {
            let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags,data_hash",
                                                        "-show_data_hash", "md5", "-of", "csv=p=0", url.path])
            return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").map(String.init)
                guard let hash = fields.first(where: { $0.contains(":") }), let flags = fields.first(where: { !$0.contains(":") }) else { return nil }
                return (hash, flags.hasPrefix("K"))
            }
        }

        /// Records `url` pass-through while `ffmpeg -c copy` records it too (started first, and
        /// running longer), and checks the recording's packets are a run of ffmpeg's.
        private func checkPassThrough(_ url: String, name: String) async throws {
            let reference = MovieFiles.path("\(name)-ffmpeg", "mp4")
            let movieURL = MovieFiles.path("\(name)-capturekit", "mp4")
            defer {
                try? FileManager.default.removeItem(at: reference)
                try? FileManager.default.removeItem(at: movieURL)
            }
            let transport = url.hasPrefix("rtsp:") ? ["-rtsp_transport", "tcp"] : []
            let copying = Task.detached {
                try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error"] + transport + ["-i", url, "-c", "copy", "-an", "-t", "10", reference.path])
            }
            let camera = try CaptureDevice.networkCamera(url: url, options: NetworkCameraTests.quick)
            #expect(camera.activeFormat.encoding == .h264, "\(camera.activeFormat)")
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.passthrough.\(name)")
            recorder.attach(to: frames)
            let movie = CaptureMovieFileOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [frames, movie])
            let connection = try #require(movie.connection(with: .video))
            #expect(movie.outputSettings(for: connection).videoCodec == .h264)
            #expect(movie.passesVideoThrough(for: connection))
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 5, timeout: .seconds(30)))
            try movie.startRecording(to: movieURL)
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 45, timeout: .seconds(30)))
            let recorded = await movie.finishRecording()
            try await session.stop()
            _ = try await copying.value
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")

            let ours = try Self.packets(movieURL), theirs = try Self.packets(reference)
            #expect(ours.count == recorded.videoFrameCount && ours.count >= 30, "\(ours.count) packets, \(recorded.videoFrameCount) frames")
            #expect(ours.first?.key == true, "the recording starts at a keyframe")
            let hashes = ours.map(\.hash), sent = theirs.map(\.hash)
            let start = try #require(sent.firstIndex(of: hashes[0]), "the first packet is one ffmpeg stored")
            #expect(Array(sent.dropFirst(start).prefix(hashes.count)) == hashes, "every packet as the server sent it, in order")
            // It plays: every packet decodes, to as many frames, at increasing times.
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", movieURL.path, "-f", "null", "-"])
            let decoded = try FileFixtures.ffprobe(movieURL, stream: "v:0", entries: "nb_read_frames")
            #expect(decoded["nb_read_frames"] == String(ours.count))
            let times = try ProbedMovie.videoTimestamps(movieURL.path)
            #expect(Set(times).count == times.count, "distinct presentation times")
            // At zero, or (B-frames) after the decode delay the camera's reordering needs: two
            // frames at most from these feeds, hidden by the file's edit list.
            #expect((times.first ?? 1) < 2.5 / 15, "the file starts at zero: \(times.prefix(3))")
        }

        @Test func anRTSPCameraIsRecordedAsItSentIt() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            try await checkPassThrough(server.url(), name: "rtsp")
        }

        @Test func anRTMPCameraIsRecordedAsItSentIt() async throws {
            let feed = try RTMPCameraFeed.start()
            defer { feed.stop() }
            try await checkPassThrough(feed.rtmpURL, name: "rtmp")
        }

        /// B-frames: each frame carries the packets read since the one before, and they are
        /// stored in decode order with their own presentation times.
        @Test func aCameraThatReordersFramesIsRecordedAsItSentIt() async throws {
            let feed = try RTMPCameraFeed.start(reorderingFrames: true)
            defer { feed.stop() }
            try await checkPassThrough(feed.rtmpURL, name: "rtmp-bframes")
        }

        /// `passThrough = false` encodes again (libx264 signs its stream; openh264, the
        /// camera's encoder, does not), and the default does not.
        @Test func transcodingIsAChoice() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            let camera = try CaptureDevice.networkCamera(url: server.url(), options: NetworkCameraTests.quick)
            for passThrough in [true, false] {
                let movie = CaptureMovieFileOutput()
                let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [movie])
                let connection = try #require(movie.connection(with: .video))
                var settings = movie.outputSettings(for: connection)
                settings.passThrough = passThrough
                movie.setOutputSettings(settings, for: connection)
                #expect(movie.passesVideoThrough(for: connection) == passThrough)
                let url = MovieFiles.path("transcode-\(passThrough)", "mp4")
                defer { try? FileManager.default.removeItem(at: url) }
                try movie.startRecording(to: url)
                try await session.start()
                #expect(await pollUntil(timeout: .seconds(30)) { movie.recordedVideoFrameCount >= 20 })
                let recorded = await movie.finishRecording()
                try await session.stop()
                #expect(recorded.error == nil, "\(String(describing: recorded.error))")
                let bytes = try Data(contentsOf: url)
                #expect((bytes.range(of: Data("x264 - core".utf8)) != nil) == !passThrough, "passThrough \(passThrough)")
            }
        }
    }
}
