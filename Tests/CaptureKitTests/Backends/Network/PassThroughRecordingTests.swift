import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A network camera's H.264 recorded as it came: the packets in the movie are the packets
    /// the server sent — compared, hash by hash, with what `ffmpeg -c copy` (a tool nobody here
    /// wrote) stores from the same stream — the file plays, and settings can still ask for an
    /// encode.
    @Suite(.serialized) struct PassThroughRecordingTests {
        /// Records `url` pass-through while `ffmpeg -c copy` records it too (started first, and
        /// running longer), and checks the recording's packets are a run of ffmpeg's. A server
        /// that takes one client at a time and loops a file of `loopLength` packets is copied by
        /// ffmpeg first, for more than a loop: the recording is then a run of that loop. Unless
        /// `watching` (a data output looks at every frame), nothing wants pixels but a photo
        /// taken mid-recording: the camera decodes nothing before it, a frame of the picture for
        /// it, and nothing again after it.
        private func checkPassThrough(_ url: String, name: String, watching: Bool = true, loopLength: Int? = nil,
                                      codec: CompressedFrame.Codec = .h264) async throws {
            let reference = MovieFiles.path("\(name)-ffmpeg", "mp4")
            let movieURL = MovieFiles.path("\(name)-capturekit", "mp4")
            defer {
                try? FileManager.default.removeItem(at: reference)
                try? FileManager.default.removeItem(at: movieURL)
            }
            let transport = url.hasPrefix("rtsp:") ? ["-rtsp_transport", "tcp"] : []
            let copy = ["-nostdin", "-v", "error"] + transport + ["-i", url, "-c", "copy", "-an", "-t", "10", reference.path]
            if loopLength != nil { try FileFixtures.run("ffmpeg", copy) }
            let copying = Task.detached { loopLength == nil ? try FileFixtures.run("ffmpeg", copy) : Data() }
            let camera = try CaptureDevice.networkCamera(url: url, options: NetworkCameraTests.quick)
            #expect(camera.activeFormat.encoding == (codec == .hevc ? .hevc : .h264), "\(camera.activeFormat)")
            let backend = try #require(camera.backend as? NetworkCameraBackend)
            let frames = CaptureVideoDataOutput(), photos = CapturePhotoOutput()
            let recorder = SampleRecorder(label: "tests.passthrough.\(name)")
            recorder.attach(to: frames)
            let movie = CaptureMovieFileOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [watching ? frames : photos, movie])
            let connection = try #require(movie.connection(with: .video))
            #expect(movie.outputSettings(for: connection).videoCodec == (codec == .hevc ? .hevc : .h264))
            #expect(movie.passesVideoThrough(for: connection))
            try await session.start()
            defer { try? session.stopRunning() }
            if watching {
                #expect(await recorder.samples.wait(forCount: 5, timeout: .seconds(30)))
                try movie.startRecording(to: movieURL)
                let count = recorder.samples.count
                #expect(await recorder.samples.wait(forCount: count + 45, timeout: .seconds(30)))
            } else {
                try movie.startRecording(to: movieURL)
                #expect(await pollUntil { movie.recordedVideoFrameCount >= 20 })
                #expect(backend.decodedFrames.load(ordering: .relaxed) == 0, "nothing wanted pixels")
                try await checkPhoto(photos, name: name)
                let decoded = backend.decodedFrames.load(ordering: .relaxed)
                #expect(decoded > 0, "the photo's frame was decoded")
                let written = movie.recordedVideoFrameCount
                #expect(await pollUntil { movie.recordedVideoFrameCount >= written + 25 })
                // The frame asked for before the photo took its own may be decoded too.
                #expect(backend.decodedFrames.load(ordering: .relaxed) <= decoded + 1, "decoding stopped after the photo")
            }
            let recorded = await movie.finishRecording()
            try await session.stop()
            _ = try await copying.value
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")

            let ours = try ProbedMovie.videoPacketHashes(movieURL), theirs = try ProbedMovie.videoPacketHashes(reference)
            #expect(ours.count == recorded.videoFrameCount && ours.count >= 30, "\(ours.count) packets, \(recorded.videoFrameCount) frames")
            #expect(ours.first?.key == true, "the recording starts at a keyframe")
            // A looped file goes round: one loop's packets, repeated, hold every run of them.
            let hashes = ours.map(\.hash)
            let sent = loopLength.map { length in Array(repeating: theirs.prefix(length).map(\.hash), count: hashes.count / length + 2).flatMap { $0 } }
                ?? theirs.map(\.hash)
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

        /// A photo of the camera's picture (not the blank that stands in for undecoded
        /// frames): a JPEG of the stream's size whose luma spans the ball and the background.
        private func checkPhoto(_ photos: CapturePhotoOutput, name: String) async throws {
            let photo = try await photos.capturePhoto()
            let file = MovieFiles.path("\(name)-photo", "jpg")
            defer { try? FileManager.default.removeItem(at: file) }
            try #require(photo.fileDataRepresentation()).write(to: file)
            let size = try FileFixtures.ffprobe(file, stream: "v:0", entries: "width,height")
            #expect(size["width"] == "320" && size["height"] == "240", "\(size)")
            let luma = try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            let range = (luma.min() ?? 0, luma.max() ?? 0)
            #expect(luma.count == 320 * 240 && range.1 - range.0 > 100, "luma \(range) over \(luma.count) pixels")
        }

        @Test func anRTSPCameraIsRecordedAsItSentIt() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            try await checkPassThrough(server.url(), name: "rtsp")
        }

        /// Nothing looks at the pixels: the packets go from the socket to the file undecoded.
        @Test func anRTSPCameraNobodyWatchesIsNotDecoded() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            try await checkPassThrough(server.url(), name: "rtsp-undecoded", watching: false)
        }

        /// HEVC (libx265, no B-frames) in MPEG-TS over SRT, nothing watching: stored packet for
        /// packet as the file the server loops holds them, none decoded but the photo's.
        @Test func anHEVCCameraIsRecordedAsItSentIt() async throws {
            let source = MovieFiles.path("hevc-source", "ts")
            defer { try? FileManager.default.removeItem(at: source) }
            // 60 frames, 4 s: ffmpeg's 10 s copy holds more than a loop.
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-frames:v", "60",
                                            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "bframes=0:keyint=15:log-level=error",
                                            "-pix_fmt", "yuv420p", "-f", "mpegts", source.path])
            let feed = try SRTCameraFeed.start(sending: source)
            defer { feed.stop() }
            try await checkPassThrough(feed.url, name: "srt-hevc", watching: false, loopLength: 60, codec: .hevc)
        }

        /// Segments of a camera's H.264 stored as it came: each is cut at the camera's first
        /// keyframe after a boundary, and one after the other they hold the server's packets, a
        /// run of what `ffmpeg -c copy` stored, none lost or doubled at a cut.
        @Test func aSegmentedRecordingOfANetworkCameraCutsAtItsKeyframes() async throws {
            let feed = try RTMPCameraFeed.start()
            defer { feed.stop() }
            let reference = MovieFiles.path("segments-ffmpeg", "mp4")
            defer { try? FileManager.default.removeItem(at: reference) }
            let copying = Task.detached {
                try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", feed.rtmpURL, "-c", "copy", "-an", "-t", "12", reference.path])
            }
            let camera = try CaptureDevice.networkCamera(url: feed.rtmpURL, options: NetworkCameraTests.quick)
            let movie = CaptureMovieFileOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [movie])
            let folder = FileFixtures.directory.appendingPathComponent("network-segments-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let events = Recorder<MovieSegmentEvent>()
            let stream = movie.segmentEvents
            let listener = Task { for await event in stream { events.append(event) } }
            defer { listener.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            var segmentation = MovieSegmentation()
            segmentation.duration = MediaTime(value: 2, timescale: 1)
            try movie.startRecording(toFolder: folder, segmentation: segmentation)
            #expect(await pollUntil { movie.recordedDuration.seconds >= 7 })
            let recorded = await movie.finishRecording()
            try await session.stop()
            _ = try await copying.value
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            let segments = events.items.compactMap { if case .finished(let segment) = $0 { segment } else { nil } }
            #expect(segments.count >= 3, "\(events.items)")
            var hashes: [String] = []
            for segment in segments {
                let packets = try ProbedMovie.videoPacketHashes(segment.url)
                #expect(packets.first?.key == true, "\(segment.url.lastPathComponent) starts at a keyframe")
                #expect(packets.count == segment.videoFrameCount)
                try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", segment.url.path, "-f", "null", "-"])
                hashes += packets.map(\.hash)
            }
            let sent = try ProbedMovie.videoPacketHashes(reference).map(\.hash)
            let start = try #require(sent.firstIndex(of: hashes[0]), "the first packet is one ffmpeg stored")
            #expect(Array(sent.dropFirst(start).prefix(hashes.count)) == hashes, "every packet as the server sent it, across the cuts")
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

        /// Recording from the moment the camera joins, a data output decoding every frame: the
        /// first frame the decoder makes carries the packets it could make nothing of (the
        /// group it joined in the middle of) ahead of its keyframe, and the file starts at that
        /// keyframe, not a group later (`capture-bench` found it a group short).
        @Test func aRecordingFromTheJoinStartsAtTheFirstDecodedKeyframe() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            let camera = try CaptureDevice.networkCamera(url: server.url(), options: NetworkCameraTests.quick)
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.passthrough.join")
            recorder.attach(to: frames)
            let movie = CaptureMovieFileOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [frames, movie])
            let url = MovieFiles.path("join", "mp4")
            defer { try? FileManager.default.removeItem(at: url) }
            try movie.startRecording(to: url)
            try await session.start()
            #expect(await recorder.samples.wait(forCount: 30, timeout: .seconds(30)))
            let recorded = await movie.finishRecording()
            let delivered = recorder.samples.count
            try await session.stop()
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            // The server's groups are 15 frames: a file a group short has lost them.
            #expect(recorded.videoFrameCount >= delivered - 5, "\(recorded.videoFrameCount) frames recorded, \(delivered) delivered")
            #expect(try ProbedMovie.videoPacketHashes(url).first?.key == true)
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
