import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Several cameras in one CaptureMultiCamSession, each output on the camera its connection names.
    @Suite(.serialized)
    struct MultiCamSessionTests {
        /// Sizes that tell the cameras apart; each draws the test pattern, so every frame's pixels
        /// are known from its size and sequence number.
        static let sizes = [VideoDimensions(width: 160, height: 120), VideoDimensions(width: 192, height: 144),
                            VideoDimensions(width: 224, height: 168), VideoDimensions(width: 256, height: 192)]

        @Test(arguments: [2, 4])
        func everyOutputGetsTheFramesOfItsOwnCamera(cameraCount: Int) async throws {
            let rig = try CameraRig(cameras: cameraCount, label: "multicam")
            defer { rig.remove() }
            let session = try rig.makeSession()
            #expect(session.connections.count == cameraCount)
            for (index, output) in rig.outputs.enumerated() {
                #expect(output.connections.map { $0.inputPorts.first?.sourceDeviceID } == [rig.cameras[index].uniqueID])
            }
            try await session.start()
            defer { try? session.stopRunning() }
            for recorder in rig.recorders { #expect(await recorder.samples.wait(forCount: 6)) }
            try await session.stop()

            for (index, recorder) in rig.recorders.enumerated() {
                let size = Self.sizes[index]
                let pattern = try TestPattern(width: size.width, height: size.height, pixelFormat: .nv12)
                let received = recorder.samples.items
                #expect(received.allSatisfy { $0.width == size.width && $0.height == size.height },
                        "camera \(index) delivered frames of another camera's size")
                for sample in received.prefix(4) {
                    let expected = try pattern.render(frameIndex: Int(sample.sequenceNumber)).packedBytes()
                    #expect(sample.sample.pixelBuffer?.packedBytes() == expected, "camera \(index) frame \(sample.sequenceNumber)")
                }
                let times = FrameTimestamps(received, frameDuration: frameDuration(fps: 30))
                #expect(times.isExact, "camera \(index): \(times)")
                #expect(recorder.accounting.isComplete, "camera \(index): \(recorder.accounting)")
            }
        }

        /// Photos and data from different cameras of one session: a photo output on the second
        /// camera takes the second camera's picture.
        @Test func aPhotoOutputTakesItsOwnCamerasPicture() async throws {
            let rig = try CameraRig(cameras: 2, label: "multicam-photo")
            defer { rig.remove() }
            let photos = CapturePhotoOutput()
            let session = try rig.makeSession(extra: [CaptureVideoDataOutput(), photos])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await rig.recorders[1].samples.wait(forCount: 3))
            let photo = try await photos.capturePhoto()
            let picture = try photo.image()
            #expect(picture.width == Self.sizes[1].width && picture.height == Self.sizes[1].height,
                    "the photo is \(picture.width)x\(picture.height), the second camera's frames \(Self.sizes[1])")
        }

        /// Independent sessions, one camera each, in one process: both capture at once.
        @Test func independentSessionsRunSideBySide() async throws {
            let rig = try CameraRig(cameras: 2, label: "multicam-independent")
            defer { rig.remove() }
            let sessions = try zip(rig.cameras, rig.outputs).map { camera, output in try makeSession(camera: camera, preset: .inputPriority, outputs: [output]) }
            for session in sessions { try await session.start() }
            for recorder in rig.recorders { #expect(await recorder.samples.wait(forCount: 10)) }
            for session in sessions { try await session.stop() }
            for (index, recorder) in rig.recorders.enumerated() {
                #expect(recorder.samples.items.allSatisfy { $0.width == Self.sizes[index].width })
                #expect(recorder.accounting.isComplete, "camera \(index): \(recorder.accounting)")
            }
        }

        /// Unplugging one camera interrupts the session and the outputs that camera feeds; the
        /// other camera's recording and frames go on, and its movie is whole.
        @Test func aLostCameraStopsOnlyWhatItFeeds() async throws {
            let rig = try CameraRig(cameras: 2, label: "multicam-unplug")
            defer {
                try? rig.cameras[1].simulateReconnect()
                rig.remove()
            }
            let movies = [CaptureMovieFileOutput(), CaptureMovieFileOutput()]
            let session = try rig.makeSession(extra: movies)
            let events = EventRecorder(session)
            let urls = ["kept", "lost"].map { FileFixtures.directory.appendingPathComponent("multicam-\($0)-\(UUID().uuidString.prefix(8)).mov") }
            defer { for url in urls { try? FileManager.default.removeItem(at: url) } }
            let delegates = [RecordingRecorder(), RecordingRecorder()]
            try await session.start()
            defer { try? session.stopRunning() }
            for (index, movie) in movies.enumerated() { try movie.startRecording(to: urls[index], recordingDelegate: delegates[index]) }
            for delegate in delegates { #expect(await delegate.startTimes.wait(forCount: 1)) }
            #expect(await rig.recorders[0].samples.wait(forCount: 10))

            try rig.cameras[1].simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: rig.cameras[1].uniqueID))))
            // The lost camera's recording ends with its camera…
            #expect(await delegates[1].finished() == .didFinish(.deviceDisconnected, usable: true))
            // …while the other camera keeps delivering and recording.
            let framesAtLoss = rig.recorders[0].samples.count
            #expect(await rig.recorders[0].samples.wait(forCount: framesAtLoss + 15))
            #expect(movies[0].isRecording)
            let recordedAtLoss = movies[0].recordedVideoFrameCount
            #expect(await rig.recorders[0].samples.wait(forCount: framesAtLoss + 30))
            #expect(movies[0].recordedVideoFrameCount > recordedAtLoss)

            let kept = await movies[0].finishRecording()
            #expect(kept.error == nil)
            let info = try FileFixtures.ffprobe(urls[0], stream: "v:0", entries: "width,height,nb_read_frames")
            #expect(info["width"] == "160" && info["height"] == "120")
            #expect(Int(info["nb_read_frames"] ?? "") == kept.videoFrameCount)
            #expect(kept.videoFrameCount >= 30)
            #expect(try FileFixtures.ffprobeDuration(urls[1]) != nil, "the lost camera's movie is playable")
        }

        /// Separate recordings started on one frame time begin within one frame of each other,
        /// and each file's first picture is the frame its start time names.
        @Test func separateRecordingsStartOnTheSameFrameTime() async throws {
            let rig = try CameraRig(cameras: 3, label: "multicam-start")
            defer { rig.remove() }
            let movies = (0..<3).map { _ in CaptureMovieFileOutput() }
            let session = try rig.makeSession(extra: movies)
            try await session.start()
            defer { try? session.stopRunning() }
            for recorder in rig.recorders { #expect(await recorder.samples.wait(forCount: 3)) }

            // A start in the near future: without it each file would begin whenever its
            // encoder had opened, one after the other.
            let start = MediaTime.now + MediaTime(value: 3, timescale: 10)
            let delegates = movies.map { _ in RecordingRecorder() }
            let urls = (0..<3).map { FileFixtures.directory.appendingPathComponent("multicam-start-\($0)-\(UUID().uuidString.prefix(8)).mp4") }
            defer { for url in urls { try? FileManager.default.removeItem(at: url) } }
            for (index, movie) in movies.enumerated() { try movie.startRecording(to: urls[index], from: start, recordingDelegate: delegates[index]) }
            for delegate in delegates { #expect(await delegate.startTimes.wait(forCount: 1)) }
            for recorder in rig.recorders { #expect(await recorder.samples.wait(forCount: recorder.samples.count + 10)) }
            for movie in movies { _ = await movie.finishRecording() }

            let interval = frameDuration(fps: 30)
            var starts: [MediaTime] = []
            for (index, delegate) in delegates.enumerated() {
                let startPTS = try #require(delegate.startTimes.items.first)
                #expect(startPTS >= start && startPTS < start + interval, "camera \(index) started at \(startPTS), asked \(start)")
                starts.append(startPTS)
                // The first picture in the file is the frame captured at startPTS.
                let frame = try #require(rig.recorders[index].samples.items.first { $0.sample.presentationTimeStamp == startPTS })
                let size = Self.sizes[index]
                let decoded = try FileFixtures.ffmpegFirstFrame(urls[index])
                let scores = try (-1...1).map { offset in
                    psnr(decoded, try expectedFrame(width: size.width, height: size.height, pixelFormat: .nv12,
                                                    index: UInt64(Int(frame.sequenceNumber) + offset)))
                }
                #expect(scores[1] > 30 && scores[1] > scores[0] + 3 && scores[1] > scores[2] + 3,
                        "camera \(index): PSNR against frames \(frame.sequenceNumber - 1)...\(frame.sequenceNumber + 1): \(scores)")
            }
            let spread = try #require(starts.max()) - (try #require(starts.min()))
            #expect(spread < interval, "the recordings started \(spread.seconds) s apart")
        }
    }
}

/// N virtual test-pattern cameras (sizes from ``RealTimeCaptureTests/MultiCamSessionTests/sizes``,
/// NV12, 30 fps), each with a video data output and a recorder.
struct CameraRig {
    let cameras: [CaptureDevice]
    let inputs: [CaptureDeviceInput]
    let outputs: [CaptureVideoDataOutput]
    let recorders: [SampleRecorder]

    init(cameras count: Int, label: String, configure: (inout VirtualCameraConfiguration) -> Void = { _ in }) throws {
        cameras = try (0..<count).map { index in
            try makeTestCamera("\(label) \(index)") { configuration in
                configuration.sizes = [RealTimeCaptureTests.MultiCamSessionTests.sizes[index]]
                configuration.pixelFormats = [.nv12]
                configuration.frameRates = [30]
                configure(&configuration)
            }
        }
        inputs = try cameras.map { try CaptureDeviceInput(device: $0) }
        outputs = cameras.map { _ in CaptureVideoDataOutput() }
        recorders = cameras.indices.map { SampleRecorder(label: "tests.multicam.\($0)") }
        for (output, recorder) in zip(outputs, recorders) { recorder.attach(to: output) }
    }

    /// A committed multi-camera session: camera i → output i, and camera i → `extra[i]`.
    func makeSession(extra: [CaptureOutput] = []) throws -> CaptureMultiCamSession {
        let session = CaptureMultiCamSession()
        try session.configure {
            for (index, input) in inputs.enumerated() {
                try session.addInputWithNoConnections(input)
                let port = try #require(input.port(for: .video))
                for output in [outputs[index]] + (index < extra.count ? [extra[index]] : []) {
                    try session.addOutputWithNoConnections(output)
                    try session.addConnection(CaptureConnection(inputPorts: [port], output: output))
                }
            }
        }
        return session
    }

    func remove() { for camera in cameras { CaptureDevice.removeVirtualDevice(camera) } }
}

