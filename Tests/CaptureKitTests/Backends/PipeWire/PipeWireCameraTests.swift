import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The PipeWire camera backend against a private PipeWire + WirePlumber with PipeWire's
    /// video test source as a camera node (see Support/AudioDaemons.swift).
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct PipeWireCameraTests {
        static func testCamera() throws -> CaptureDevice {
            try #require(CaptureDevice.allDevices.first { $0.uniqueID == "pipewire:testcam" },
                         "the test camera node: \(CaptureDevice.allDevices.map(\.uniqueID))")
        }

        /// A session on the test camera set to `pixelFormat` at `width`×`height` and 30 fps, with a
        /// recorded video data output.
        static func session(pixelFormat: PixelFormat, width: Int, height: Int) throws -> (CaptureSession, SampleRecorder) {
            let camera = try testCamera()
            let format = try #require(camera.formats.first { $0.pixelFormat == pixelFormat && $0.width == width && $0.height == height })
            try camera.lockForConfiguration()
            try camera.setActiveFormat(format)
            try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 30))
            camera.unlockForConfiguration()
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            return (try makeSession(camera: camera, preset: .inputPriority, outputs: [output]), recorder)
        }

        @Test func theTestNodeIsACameraWithItsFormats() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(camera: true) { daemon in
                let camera = try Self.testCamera()
                #expect(camera.localizedName == "Test Camera")
                #expect(camera.hasMediaType(.video) && camera.isConnected && !camera.isVirtual)
                #expect(camera.manufacturer == "PipeWire")
                // videotestsrc offers RGB and UYVY at any size and rate: the usual sizes and rates.
                let formats = camera.formats
                for pixelFormat in [PixelFormat.rgb24, .uyvy422] {
                    for size in [(320, 240), (640, 480), (1280, 720)] {
                        let format = try #require(formats.first { $0.pixelFormat == pixelFormat && $0.width == size.0 && $0.height == size.1 },
                                                  "\(pixelFormat) \(size): \(formats)")
                        #expect(format.videoSupportedFrameRateRanges.map(\.maxFrameRate).contains(30))
                    }
                }
                #expect(CaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified).devices.contains(camera))
            }
            // Daemon gone: its camera is neither listed nor tried.
            #expect(!CaptureDevice.allDevices.contains { $0.uniqueID.hasPrefix("pipewire:") })
        }

        /// 100 frames at the size and rate the session pinned (not the node's default 320x240 at
        /// 25 fps), with their capture times, every one accounted for.
        @Test func framesComeAtThePinnedSizeAndRate() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(camera: true) { daemon in
                let (session, recorder) = try Self.session(pixelFormat: .uyvy422, width: 640, height: 480)
                let started = MonotonicClock.nanoseconds()
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.samples.wait(forCount: 100, timeout: .seconds(30)))
                try await session.stop()
                let received = recorder.samples.items.prefix(100)
                #expect(received.allSatisfy { $0.width == 640 && $0.height == 480 && $0.sample.pixelBuffer?.pixelFormat == .uyvy422 })
                let stamps = received.map(\.sample.presentationTimeStamp)
                #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "timestamps rise")
                for sample in received {
                    let captured = try #require(sample.sample.presentationTimeStamp.nanoseconds)
                    #expect(captured >= started && captured <= sample.arrival, "frame \(sample.sequenceNumber) stamped outside its stream")
                }
                // 30 fps from the node's own clock: the times step by one frame (1/30 s) each.
                let steps = zip(stamps, stamps.dropFirst()).map { ($1 - $0).seconds }
                #expect(steps.allSatisfy { abs($0 - 1.0 / 30) < 0.002 || $0 > 1.0 / 30 }, "steps: \(steps.prefix(10))")
                #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            }
        }

        /// Another process captures from the camera in the same format while this one does:
        /// PipeWire shares the node between them.
        @Test func twoProcessesCaptureFromOneCameraAtOnce() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(camera: true) { daemon in
                let (session, recorder) = try Self.session(pixelFormat: .rgb24, width: 320, height: 240)
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.samples.wait(forCount: 5))
                let capture = try #require(MovieFiles.captureExecutable)
                var environment = daemon.environment
                environment["PIPEWIRE_REMOTE"] = daemon.pipeWireSocket
                let other = try AudioDaemons.run(capture.path, ["frames", "--device", "pipewire:testcam", "--count", "20", "--size", "320x240",
                                                                             "--pixel-format", "rgb24", "--fps", "30", "--json"], environment: environment)
                let report = try #require(try JSONSerialization.jsonObject(with: Data(other.utf8)) as? [String: Any], "\(other)")
                #expect(report["frames"] as? Int == 20 && report["device"] as? String == "Test Camera", "\(report)")
                let during = recorder.samples.count
                #expect(await recorder.samples.wait(forCount: during + 10), "this process kept capturing")
            }
        }

        /// The node destroyed mid-recording: the session is interrupted and the movie finishes,
        /// playable; the node made again under the same name brings the camera back.
        @Test func aNodeRemovedMidRecordingInterruptsLeavesAPlayableMovieAndComesBack() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(camera: true) { daemon in
                let camera = try Self.testCamera()
                let movie = CaptureMovieFileOutput(), frames = CaptureVideoDataOutput()
                let recorder = SampleRecorder()
                recorder.attach(to: frames)
                let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [movie, frames])
                let events = EventRecorder(session)
                let url = FileFixtures.directory.appendingPathComponent("pipewire-\(UUID().uuidString.prefix(8)).mp4")
                defer { try? FileManager.default.removeItem(at: url) }
                try await session.start()
                defer { try? session.stopRunning() }
                let delegate = RecordingRecorder()
                try movie.startRecording(to: url, recordingDelegate: delegate)
                #expect(await delegate.startTimes.wait(forCount: 1))
                #expect(await recorder.samples.wait(forCount: recorder.samples.count + 15))

                let nodes = try AudioDaemons.run("pw-cli", ["ls", "Node"], environment: daemon.environment)
                let id = try #require(Self.nodeID(named: "testcam", in: nodes), "\(nodes)")
                try AudioDaemons.run("pw-cli", ["destroy", id], environment: daemon.environment)
                #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))))
                #expect(await delegate.finished() == .didFinish(.deviceDisconnected, usable: true))
                #expect(!camera.isConnected)
                let recorded = await movie.finishRecording()
                let info = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height,nb_read_frames")
                #expect(Int(info["nb_read_frames"] ?? "") == recorded.videoFrameCount && recorded.videoFrameCount >= 10, "\(info)")

                // A node of the same name again (as a camera plugged back in): capture resumes.
                let before = recorder.samples.count
                try AudioDaemons.run("pw-cli", ["create-node", "spa-node-factory", Self.testNodeArguments], environment: daemon.environment)
                #expect(await events.wait(for: .interruptionEnded))
                #expect(camera.isConnected)
                #expect(await recorder.samples.wait(forCount: before + 10), "frames after the node came back")
            }
        }

        /// The test camera node's arguments for `pw-cli create-node spa-node-factory`.
        static let testNodeArguments = "{ factory.name = videotestsrc node.name = testcam node.description = \"Test Camera\" "
            + "media.class = Video/Source media.role = Camera object.linger = true }"

        /// The id of the node named `name` in `pw-cli ls Node`'s listing.
        static func nodeID(named name: String, in listing: String) -> String? {
            var id: String?
            for line in listing.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("id ") { id = text.dropFirst(3).split(separator: ",").first.map(String.init) }
                if text == "node.name = \"\(name)\"" { return id }
            }
            return nil
        }
    }
}
