import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Recording movies from the virtual camera and microphone in real time, every file checked
    /// with ffprobe. What a loaded machine cannot change is checked, never how many frames it
    /// managed: the file's timestamps are capture times, every frame the camera produced inside
    /// the recording is in the file or reported dropped, and audio and video start and end
    /// within one frame of each other.
    @Suite(.serialized, .tags(.childProcess))
    struct MovieRecordingTests {
        /// The test camera's frame duration (30 fps).
        private let frameDuration = MediaTime(value: 1, timescale: 30)

        /// Records up to `seconds` (the maximum duration) through `prepare`d output settings and
        /// returns the file, the delegate's calls and the finished recording.
        private func record(_ label: String, ext: String, seconds: Int64 = 2, audio: Bool = true,
                            prepare: (CaptureMovieFileOutput, CaptureSession) throws -> Void = { _, _ in })
            async throws -> (URL, [RecordingRecorder.Call], RecordedMovie?) {
            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: seconds, timescale: 1)
            let (session, camera, microphone) = try makeRecordingSession(label, audio: audio, outputs: [movie])
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
            try prepare(movie, session)
            try await session.start()
            let url = MovieFiles.path(label, ext)
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(movie.isRecording)
            let finish = await delegate.finished(timeout: .seconds(60))
            try await session.stop()
            #expect(finish != nil, "the recording never finished")
            return (url, delegate.calls.items, movie.lastRecordedMovie)
        }

        /// Checks a recording that ran to its maximum duration of `seconds`: every one of the
        /// frames the camera produced in that time is in the file or reported dropped, and the
        /// file holds none beyond it. Returns the file's timeline.
        @discardableResult
        private func expectWhole(_ url: URL, _ clip: RecordedMovie?, _ probe: ProbedMovie, seconds: Int, tailDropsAllowed: Bool = false,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> MovieTimeline {
            let frames = seconds * Int(frameDuration.timescale)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            timeline.expectAccounted(clip, probe: probe, covering: frames, limit: frames, tailDropsAllowed: tailDropsAllowed, sourceLocation: sourceLocation)
            return timeline
        }

        @Test func movWithH264AndAACIsExactAndInSync() async throws {
            let (url, calls, clip) = try await record("mov", ext: "mov")
            #expect(calls == [.didStart, .willFinish, .didFinish(.maximumDurationReached, usable: true)])
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.formatName.hasPrefix("mov"))
            #expect(probe.streams.count == 2)
            let video = try #require(probe.video)
            let audio = try #require(probe.audio)
            #expect(video.codec == "h264")
            #expect(audio.codec == "aac")
            #expect(audio.sampleRate == 48_000)
            #expect(video.startTime == 0, "the file's time zero is its first frame")
            try expectWhole(url, clip, probe, seconds: 2).expectInSync(probe)
            #expect(probe.tags["creation_time"] != nil)
        }

        @Test(arguments: [
            ("mp4", MovieOutputSettings.VideoCodec.h264, MovieOutputSettings.AudioCodec.aac, "h264", "aac"),
            ("mkv", .h264, .opus, "h264", "opus"),
            ("mov", .mjpeg, .pcm, "mjpeg", "pcm_s16le"),
            ("mp4", .hevc, .aac, "hevc", "aac"),
        ])
        func containersAndCodecs(ext: String, videoCodec: MovieOutputSettings.VideoCodec, audioCodec: MovieOutputSettings.AudioCodec,
                                 expectedVideo: String, expectedAudio: String) async throws {
            let (url, calls, clip) = try await record("codec-\(expectedVideo)", ext: ext, seconds: 1) { movie, _ in
                var settings = MovieOutputSettings()
                settings.videoCodec = videoCodec
                settings.audioCodec = audioCodec
                for connection in movie.connections { movie.setOutputSettings(settings, for: connection) }
            }
            #expect(calls.last == .didFinish(.maximumDurationReached, usable: true))
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.video?.codec == expectedVideo)
            #expect(probe.audio?.codec == expectedAudio)
            // A slow encoder (HEVC in a debug build on a busy machine) may have its queue
            // overflow: those frames are reported, never silently missing, and when they are the
            // last ones the video ends before the audio by as much.
            let timeline = try expectWhole(url, clip, probe, seconds: 1, tailDropsAllowed: true)
            try timeline.expectInSync(probe, missingFrames: min(clip?.droppedSampleCount ?? 0, max(0, Int(frameDuration.timescale) - timeline.frames)))
            if ext == "mp4" {
                // faststart: the index comes before the media.
                let bytes = try Data(contentsOf: url)
                let moov = try #require(bytes.range(of: Data("moov".utf8)))
                let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
                #expect(moov.lowerBound < mdat.lowerBound)
            }
        }

        @Test func orientationMirroringAndMetadataAreWritten() async throws {
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let (url, _, clip) = try await record("meta", ext: "mov", seconds: 1, audio: false) { movie, _ in
                let connection = try #require(movie.connection(with: .video))
                connection.videoOrientation = .portrait
                movie.metadata = MovieMetadata(title: "Front door", creationDate: date,
                                               location: .init(latitude: 48.8584, longitude: 2.2945, altitude: 35))
            }
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.streams.count == 1)
            #expect(probe.video?.rotation == -90)
            #expect(probe.tags["title"] == "Front door")
            #expect(probe.tags["creation_time"]?.hasPrefix("2023-11-14T22:13:20") == true)
            #expect(probe.tags["location"] == "+48.8584+002.2945+035.000/")
            try expectWhole(url, clip, probe, seconds: 1)
        }

        @Test func mirroredPortraitIsAFlippedMatrix() async throws {
            let (url, _, clip) = try await record("mirror", ext: "mov", seconds: 1, audio: false) { movie, _ in
                let connection = try #require(movie.connection(with: .video))
                connection.videoOrientation = .landscapeLeft
                connection.isVideoMirrored = true
            }
            let probe = try ProbedMovie.probe(url.path)
            // A horizontal flip of a 180° turn: ffprobe reports the rotation part as 0 or ±180.
            let rotation = try #require(probe.video?.rotation)
            #expect([0, 180, -180].contains(rotation))
            let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=displaymatrix", "-of", "json", url.path])
            #expect(String(decoding: data, as: UTF8.self).contains("displaymatrix"))
            try expectWhole(url, clip, probe, seconds: 1)
        }

        @Test func pauseExcludesThePausedTimeWithoutAJump() async throws {
            let movie = CaptureMovieFileOutput()
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            let (session, camera, microphone) = try makeRecordingSession("pause", outputs: [movie, frames])
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
            try await session.start()
            // The data output beside the movie output is the clock: its samples carry the
            // camera's capture times and sequence numbers. 20 frames are recorded, 31 paused, 20
            // more recorded, counted in capture time (so however many the machine dropped).
            // Each mark is taken just after its call, so the request lies before it; each span
            // ends with a call made once the frames it must hold were delivered.
            #expect(await recorder.samples.wait(forCount: 1, timeout: .seconds(30)))
            // That frame reached the outputs before the recording existed: no earlier one is in it.
            let firstPossible = try #require(recorder.samples.items.last?.sequenceNumber)
            let url = MovieFiles.path("pause", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let started = MonotonicClock.nanoseconds()
            #expect(await recorder.waitUntilCaptured(20, of: frameDuration, after: started) != nil)
            movie.pauseRecording()
            let paused = MonotonicClock.nanoseconds()
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didPause) })
            #expect(movie.isRecordingPaused)
            #expect(await recorder.waitUntilCaptured(31, of: frameDuration, after: paused) != nil)
            movie.resumeRecording()
            let resumed = MonotonicClock.nanoseconds()
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didResume) })
            #expect(await recorder.waitUntilCaptured(20, of: frameDuration, after: resumed) != nil)
            let clip = await movie.finishRecording()
            let finished = MonotonicClock.nanoseconds()
            // The first frame captured after the stop was asked for: no later one is in the file.
            let after = try #require(await recorder.waitUntilCaptured(0, of: frameDuration, after: finished))
            try await session.stop()

            #expect(clip.error == nil)
            #expect(delegate.calls.items == [.didStart, .didPause, .didResume, .willFinish, .didFinish(nil, usable: true)])
            let probe = try ProbedMovie.probe(url.path)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            // Both recorded stretches are there (40 frames captured while recording, each in
            // the file or reported), with no jump where the pause was.
            timeline.expectAccounted(clip, probe: probe, covering: 40)
            // The paused time is not: the file spans at least the 31 paused frames less than
            // the frames the camera produced while the recording existed.
            let produced = Int(after.sequenceNumber - firstPossible)
            #expect(timeline.span + 30 <= produced, "\(timeline) of \(produced) frames produced while recording")
            try timeline.expectInSync(probe)
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: frameDuration)
            #expect(times.isExact, "\(times)")
        }

        @Test func maximumFileSizeStopsWithACompleteFile() async throws {
            let limit: Int64 = 150_000
            let (url, calls, clip) = try await record("size", ext: "mp4", seconds: 30) { movie, _ in
                movie.maxRecordedFileSize = limit
                var settings = MovieOutputSettings()
                settings.videoQuality = .bitRate(2_000_000)
                for connection in movie.connections { movie.setOutputSettings(settings, for: connection) }
            }
            #expect(calls.last == .didFinish(.maximumFileSizeReached, usable: true))
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64)
            #expect(size <= limit)
            #expect(size > limit / 2)
            let probe = try ProbedMovie.probe(url.path)
            #expect((probe.video?.frames ?? 0) > 0)
            #expect(probe.duration < 30)
            try MovieTimeline(url.path, frameDuration: frameDuration).expectAccounted(clip, probe: probe)
        }

        @Test func startingIsRefusedUpFrontWithTypedErrors() async throws {
            let movie = CaptureMovieFileOutput()
            let (session, camera, microphone) = try makeRecordingSession("refuse", outputs: [movie])
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
            let url = MovieFiles.path("refuse", "mov")
            do {
                try CaptureMovieFileOutput().startRecording(to: url)
                Issue.record("an output in no session started recording")
            } catch {
                #expect(error.code == .invalidState)
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))

            try await session.start()
            do {
                try movie.startRecording(to: URL(fileURLWithPath: "/nonexistent-dir/x.mov"))
                Issue.record("an unwritable path was accepted")
            } catch {
                #expect(error.code == .fileError)
                #expect(error.path == "/nonexistent-dir/x.mov")
            }
            do {
                try movie.startRecording(to: MovieFiles.path("refuse", "avi"))
                Issue.record("an unknown extension was accepted")
            } catch {
                #expect(error.code == .unsupportedFormat)
            }
            let existing = MovieFiles.path("existing", "mov")
            try Data("precious".utf8).write(to: existing)
            do {
                try movie.startRecording(to: existing)
                Issue.record("an existing file was overwritten")
            } catch {
                #expect(error.code == .fileError)
            }
            #expect(try Data(contentsOf: existing) == Data("precious".utf8))
            let audioConnection = try #require(movie.connection(with: .audio))
            do {
                var settings = MovieOutputSettings()
                settings.audioCodec = .pcm
                movie.setOutputSettings(settings, for: audioConnection)
                try movie.startRecording(to: MovieFiles.path("pcm", "mp4"))
                Issue.record("PCM in MP4 was accepted")
            } catch {
                #expect(error.code == .unsupportedFormat)
            }
            #expect(!movie.isRecording)

            movie.setOutputSettings(MovieOutputSettings(), for: audioConnection)
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(await delegate.calls.wait { $0.contains(.didStart) })
            do {
                try movie.startRecording(to: MovieFiles.path("second", "mov"))
                Issue.record("a second recording was started")
            } catch {
                #expect(error.code == .invalidState)
            }
            let clip = await movie.finishRecording()
            #expect(clip.error == nil)
            #expect(clip.url == url)
            try await session.stop()
        }

        @Test func anUnpacedFileIsRecordedWholeAndExact() async throws {
            // Long enough that the unpaced audio runs seconds ahead of the video.
            let source = try FileFixtures.file("av-8s.mp4") {
                try FileFixtures.ffmpeg(FileFixtures.picture(size: "160x120", seconds: 8) + FileFixtures.tone(seconds: 8)
                                        + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], to: $0)
            }
            let devices = try CaptureDevice.makeFileDevices(contentsOf: source, options: FileDeviceOptions(pacing: .unpaced, looping: false))
            defer { devices.remove() }
            let camera = try #require(devices.video), microphone = try #require(devices.audio)
            let movie = CaptureMovieFileOutput()
            let session = CaptureSession()
            session.beginConfiguration()
            try session.setSessionPreset(.inputPriority)
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.addInput(CaptureDeviceInput(device: microphone))
            try session.addOutput(movie)
            try session.commitConfiguration()
            let ended = Recorder<String>()
            let events = session.events
            let watcher = Task {
                for await event in events {
                    if case .deviceReachedEnd(let id) = event { ended.append(id) }
                }
            }
            defer { watcher.cancel() }
            // Armed before the session starts: the recording begins with the file's first frame.
            let url = MovieFiles.path("unpaced", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            try await session.start()
            #expect(await ended.wait(timeout: .seconds(30)) { Set($0).count == 2 })
            let clip = await movie.finishRecording()
            try await session.stop()
            #expect(clip.error == nil)
            #expect(clip.droppedSampleCount == 0, "an unpaced source is held back, never dropped")
            let original = try ProbedMovie.probe(source.path)
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.frames == original.video?.frames, "every frame of the file, exactly")
            #expect(abs(video.duration - (original.video?.duration ?? 0)) < 0.001)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            timeline.expectAccounted(clip, probe: probe, covering: original.video?.frames ?? 0)
            #expect(timeline.holes == 0, "\(timeline)")
            try timeline.expectInSync(probe)
            // The tone is there from start to end: no stretch of it was replaced by silence.
            let report = try FileFixtures.run("ffmpeg", ["-v", "info", "-nostats", "-i", url.path, "-af", "silencedetect=n=-50dB:d=0.1",
                                                         "-f", "null", "-"], includingErrors: true)
            #expect(!String(decoding: report, as: UTF8.self).contains("silence_start"), "the recorded audio has silent stretches")
        }

        @Test func aLostCameraFinishesTheFile() async throws {
            let movie = CaptureMovieFileOutput()
            let frames = CaptureVideoDataOutput()
            let clock = SampleRecorder()
            clock.attach(to: frames)
            let (session, camera, microphone) = try makeRecordingSession("unplug", outputs: [movie, frames])
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
            try await session.start()
            let url = MovieFiles.path("unplug", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let started = MonotonicClock.nanoseconds()
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
            // 20 frames captured while recording, every one handed to the movie output before
            // the camera goes.
            #expect(await clock.waitUntilCaptured(20, of: frameDuration, after: started) != nil)
            try camera.simulateDisconnect()
            let finish = await delegate.finished()
            #expect(finish == .didFinish(.deviceDisconnected, usable: true))
            try await session.stop()
            let probe = try ProbedMovie.probe(url.path)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            timeline.expectAccounted(movie.lastRecordedMovie, probe: probe, covering: 20)
            try timeline.expectInSync(probe)
        }

        @Test func stoppingTheSessionFinishesTheFile() async throws {
            let movie = CaptureMovieFileOutput()
            let frames = CaptureVideoDataOutput()
            let clock = SampleRecorder()
            clock.attach(to: frames)
            let (session, camera, microphone) = try makeRecordingSession("sessionstop", outputs: [movie, frames])
            defer {
                CaptureDevice.removeVirtualDevice(camera)
                if let microphone { CaptureDevice.removeVirtualDevice(microphone) }
            }
            try await session.start()
            let url = MovieFiles.path("sessionstop", "mp4")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let started = MonotonicClock.nanoseconds()
            #expect(await delegate.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
            #expect(await clock.waitUntilCaptured(15, of: frameDuration, after: started) != nil)
            try await session.stop()
            #expect(await delegate.finished() == .didFinish(.sessionStopped, usable: true))
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.audio != nil)
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            timeline.expectAccounted(movie.lastRecordedMovie, probe: probe, covering: 15)
            try timeline.expectInSync(probe)
        }
    }
}
