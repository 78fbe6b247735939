import Foundation
import Glibc
import Testing
@testable import CaptureKit
import CaptureKitPreview

extension RealTimeCaptureTests {
    /// Network cameras against real servers on 127.0.0.1: GStreamer's RTSP server and FFmpeg
    /// publishing into nginx-rtmp, read over RTSP, RTMP and HLS; a publisher that dies and comes
    /// back, a server that stalls (SIGSTOP) and resumes, and input that is not a camera.
    @Suite(.serialized) struct NetworkCameraTests {
        /// A network camera's options for tests: a short stall timeout and quick reconnections.
        static var quick: NetworkCameraOptions {
            var options = NetworkCameraOptions()
            options.stallTimeout = .seconds(2)
            options.reconnectDelay = .milliseconds(100)
            options.maximumReconnectDelay = .milliseconds(400)
            return options
        }

        /// A live source of `scheme` and its URL; `stop` ends it. Besides the schemes: RTSP
        /// with RTP over UDP, RTSP asking for Digest authentication, MPEG-TS in plain UDP and
        /// in RTP sent to this machine, and SRT with the camera listening for the encoder.
        private static func source(_ scheme: String) async throws -> (url: String, stop: () -> Void) {
            switch scheme {
            case "rtsp", "rtsp-udp":
                let server = try RTSPCameraServer.start()
                return (server.url(), server.stop)
            case "rtsp-digest":
                let server = try RTSPCameraServer.start(digestUser: "viewer", password: "d1gest-pw")
                return (server.url(), server.stop)
            case "udp", "rtp":
                let feed = try UDPCameraFeed.start(rtp: scheme == "rtp")
                return (feed.url, feed.stop)
            case "srt":
                let feed = try SRTCameraFeed.start()
                return (feed.url, feed.stop)
            case "srt-listener":
                let feed = try SRTCallerFeed.start()
                return (feed.url, feed.stop)
            case "mjpeg":
                // CaptureKit's own web preview of a virtual camera: multipart JPEGs over HTTP.
                let camera = try makeTestCamera("mjpeg source")
                let session = try makeSession(camera: camera, outputs: [])
                let preview = try CaptureWebPreview(session: session)
                try await session.start()
                return ("http://127.0.0.1:\(preview.port)/stream.mjpg?token=\(preview.accessToken)", {
                    preview.stop()
                    try? session.stopRunning()
                    CaptureDevice.removeVirtualDevice(camera)
                })
            default:
                let feed = try RTMPCameraFeed.start()
                return (scheme == "rtmp" ? feed.rtmpURL : feed.hlsURL, feed.stop)
            }
        }

        /// Each protocol: the device has the stream's format; frames arrive with strictly
        /// increasing timestamps, each dated no later than it was delivered; a photo works.
        @Test(arguments: ["rtsp", "rtsp-udp", "rtsp-digest", "rtmp", "hls", "srt", "srt-listener", "udp", "rtp", "mjpeg"])
        func aNetworkCameraDeliversLiveFrames(over scheme: String) async throws {
            let (url, stop) = try await Self.source(scheme)
            defer { stop() }
            var options = Self.quick
            if scheme == "rtsp-udp" { options.rtspTransport = .udp }
            let camera = try CaptureDevice.networkCamera(url: url, options: options)
            #expect(camera.deviceType == .network)
            #expect(camera.formats.count == 1)
            #expect(camera.activeFormat.width == 320 && camera.activeFormat.height == 240, "\(camera.activeFormat)")
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.network.\(scheme)")
            recorder.attach(to: output)
            let photos = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output, photos])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 15, timeout: .seconds(30)),
                    "frames over \(scheme): \(recorder.samples.count); events: \(events.events.items)")
            let photo = try await photos.capturePhoto(with: CapturePhotoSettings())
            #expect(photo.resolvedSettings.photoDimensions.width == 320)
            try await session.stop()
            let received = recorder.samples.items
            let times = received.map { $0.sample.presentationTimeStamp.nanoseconds ?? 0 }
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
            #expect(received.allSatisfy { ($0.sample.presentationTimeStamp.nanoseconds ?? .max) <= $0.arrival }, "no frame is dated after its delivery")
            #expect(received.allSatisfy { $0.width == 320 && $0.height == 240 })
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }

        /// The camera's encoder dies and starts again: the session is interrupted, reconnects by
        /// itself, the frames after the return run on in number and time, and the recording
        /// (`.continueRecording`) holds both sides of the gap in one playable file.
        @Test func anRTMPCameraComesBackWhenItsPublisherRestarts() async throws {
            let feed = try RTMPCameraFeed.start()
            defer { feed.stop() }
            let camera = try CaptureDevice.networkCamera(url: feed.rtmpURL, options: Self.quick)
            let output = CaptureVideoDataOutput()
            output.alwaysDiscardsLateVideoFrames = false
            let recorder = SampleRecorder(label: "tests.network.restart")
            recorder.attach(to: output)
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output, movie])
            let events = EventRecorder(session)
            let url = MovieFiles.path("network-restart", "mkv")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await recorder.samples.wait(forCount: 10, timeout: .seconds(30)))
            // Recorded as sent, the file starts at the camera's next keyframe (one a second).
            #expect(await pollUntil { movie.recordedVideoFrameCount >= 5 })
            feed.killPublisher()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID)), timeout: .seconds(20)),
                    "\(events.events.items)")
            let lastBefore = try #require(recorder.samples.items.last)
            try feed.publish()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)), "\(events.events.items)")
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 10, timeout: .seconds(30)))
            // nginx relays from mid-picture-group: the file goes on at the next keyframe.
            let written = movie.recordedVideoFrameCount
            #expect(await pollUntil { movie.recordedVideoFrameCount >= written + 5 })
            let recorded = await movie.finishRecording()
            try await session.stop()
            let after = try #require(recorder.samples.items.first { $0.sequenceNumber > lastBefore.sequenceNumber })
            #expect(after.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp)
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let (before, afterGap) = try checkRecordingAcrossAGap(url, recorded)
            #expect(before >= 5 && afterGap >= 5, "frames on both sides of the gap: \(before) and \(afterGap)")
        }

        /// The RTSP server stops answering (SIGSTOP): detected within the stall timeout,
        /// reported, and recovered once it runs again (SIGCONT).
        @Test func aStalledRTSPServerIsDetectedAndRecovered() async throws {
            let server = try RTSPCameraServer.start()
            defer { server.stop() }
            let camera = try CaptureDevice.networkCamera(url: server.url(), options: Self.quick)
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.network.stall")
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 10, timeout: .seconds(30)))
            kill(server.process.pid, SIGSTOP)
            let stopped = MonotonicClock.nanoseconds()
            let interrupted = await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID)), timeout: .seconds(20))
            let detected = MonotonicClock.nanoseconds()
            kill(server.process.pid, SIGCONT)
            #expect(interrupted, "\(events.events.items)")
            // The stall timeout is 2 s; the last frame may have come up to a frame before the stop.
            #expect(detected - stopped < 2_000_000_000 + 1_500_000_000, "detected \(Double(detected - stopped) / 1e9) s after the stop")
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)), "\(events.events.items)")
            let count = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: count + 5, timeout: .seconds(30)))
        }

        /// Credentials, by Basic and by Digest authentication: the right password works and
        /// appears nowhere; a wrong one is `.notAuthorized` without the password in the message.
        @Test(arguments: [false, true])
        func anRTSPCameraWithAPasswordKeepsItSecret(digest: Bool) async throws {
            let password = "s3cr3t-pw-\(UInt16.random(in: 1000...9999))"
            let server = digest ? try RTSPCameraServer.start(digestUser: "viewer", password: password)
                : try RTSPCameraServer.start(user: "viewer", password: password)
            defer { server.stop() }
            let camera = try CaptureDevice.networkCamera(url: server.url(), options: Self.quick)
            #expect(!camera.uniqueID.contains(password) && !camera.localizedName.contains(password) && !camera.description.contains(password))
            let wrong = "wrong-\(password)"
            let error = try #require(throws: CaptureError.self) { try CaptureDevice.networkCamera(url: server.url(password: wrong), options: Self.quick) }
            #expect(error.code == .notAuthorized, "\(error)")
            #expect(!"\(error)".contains(wrong) && !"\(error)".contains(password), "\(error)")
        }

        /// What is not a camera: a typed error within the timeout, no secret in it, no crash.
        @Test func whatIsNotACameraIsATypedError() async throws {
            let folder = FileFixtures.directory.appendingPathComponent("not-a-camera-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "hello, I am text".write(to: folder.appendingPathComponent("index.txt"), atomically: true, encoding: .utf8)
            try Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: folder.appendingPathComponent("noise.bin"))
            let http = try StaticHTTPServer.start(serving: folder)
            defer { http.stop() }
            let closed = try freeTCPPort()
            let cases: [(url: String, code: CaptureError.Code)] = [
                ("not a url", .invalidArgument),
                ("ftp://127.0.0.1/cam", .invalidArgument),
                ("rtsp://", .invalidArgument),
                ("rtsp://user:hunter2@127.0.0.1:\(closed)/cam", .connectionFailed),
                ("rtmp://127.0.0.1:\(closed)/live/hunter2", .connectionFailed),
                ("http://127.0.0.1:\(closed)/stream", .connectionFailed),
                (http.url(for: "missing.m3u8"), .connectionFailed),
                (http.url(for: "index.txt"), .unsupportedFormat),
                (http.url(for: "noise.bin"), .unsupportedFormat),
            ]
            for (url, code) in cases {
                let start = MonotonicClock.nanoseconds()
                let error = try #require(throws: CaptureError.self, "\(url)") { try CaptureDevice.networkCamera(url: url, options: Self.quick) }
                #expect(error.code == code, "\(url): \(error)")
                #expect(!"\(error)".contains("hunter2"), "\(error)")
                #expect(MonotonicClock.nanoseconds() - start < 8_000_000_000, "\(url) took too long")
            }
        }
    }
}
