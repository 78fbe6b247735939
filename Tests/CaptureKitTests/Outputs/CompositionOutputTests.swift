import Foundation
import Testing
@testable import CaptureKit
import CaptureKitMedia

extension RealTimeCaptureTests {
    /// Two cameras drawn into one picture, recorded through the composition's own device.
    @Suite(.serialized)
    struct CompositionOutputTests {
        /// A session: both rig cameras → composition and their own data outputs; composition
        /// device → a data output (and `movie`).
        static func makeSession(_ rig: CameraRig, _ composition: CaptureCompositionOutput, frames: CaptureVideoDataOutput,
                                movie: CaptureMovieFileOutput? = nil) throws -> CaptureMultiCamSession {
            let session = CaptureMultiCamSession()
            try session.configure {
                try session.addOutputWithNoConnections(composition)
                for (input, output) in zip(rig.inputs, rig.outputs) {
                    try session.addInputWithNoConnections(input)
                    try session.addOutputWithNoConnections(output)
                    for taker in [composition, output] as [CaptureOutput] {
                        try session.addConnection(CaptureConnection(inputPorts: [try #require(input.port(for: .video))], output: taker))
                    }
                }
                let composed = try CaptureDeviceInput(device: composition.device)
                try session.addInputWithNoConnections(composed)
                for output in [frames as CaptureOutput] + (movie.map { [$0] } ?? []) {
                    try session.addOutputWithNoConnections(output)
                    try session.addConnection(CaptureConnection(inputPorts: [try #require(composed.port(for: .video))], output: output))
                }
            }
            return session
        }

        /// The luma of `rect` of an NV12 frame, row by row.
        static func luma(_ frame: PixelBuffer, _ rect: PixelRect) -> [UInt8] {
            precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= frame.width && rect.y + rect.height <= frame.height,
                         "\(rect) outside \(frame.width)x\(frame.height)")
            return frame.withUnsafeBytes(ofPlane: 0) { bytes in
                (rect.y..<rect.y + rect.height).flatMap { row in
                    Array(bytes[(row * frame.bytesPerRow(ofPlane: 0) + rect.x)..<(row * frame.bytesPerRow(ofPlane: 0) + rect.x + rect.width)])
                }
            }
        }

        /// Test-pattern frame `index` of camera `camera` of the rig, scaled to `rect` as the composition scales it.
        static func expectedPicture(camera: Int, index: UInt64, rect: PixelRect) throws -> PixelBuffer {
            let size = MultiCamSessionTests.sizes[camera]
            let frame = try TestPattern(width: size.width, height: size.height, pixelFormat: .nv12).render(frameIndex: Int(index))
            return try PixelConverter.shared.convert(frame, to: .nv12, width: rect.width, height: rect.height)
        }

        /// The luma of ``expectedPicture(camera:index:rect:)``.
        static func expected(camera: Int, index: UInt64, rect: PixelRect) throws -> [UInt8] {
            luma(try expectedPicture(camera: camera, index: index, rect: rect), PixelRect(x: 0, y: 0, width: rect.width, height: rect.height))
        }

        @Test(arguments: [CompositionLayout.pictureInPicture(corner: .bottomRight, scale: 0.4), .sideBySide])
        func eachComposedFrameHoldsTheMainFrameAndTheNewestOfTheOther(layout: CompositionLayout) async throws {
            let rig = try CameraRig(cameras: 2, label: "composition")
            defer { rig.remove() }
            let canvas = VideoDimensions(width: 320, height: 240)
            let composition = try CaptureCompositionOutput(layout: layout, size: canvas)
            let frames = CaptureVideoDataOutput()
            let composed = SampleRecorder(label: "tests.composition")
            composed.attach(to: frames)
            let session = try Self.makeSession(rig, composition, frames: frames)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await composed.samples.wait(forCount: 12))
            try await session.stop()

            let main = layout.rectangle(for: 0, source: MultiCamSessionTests.sizes[0], canvas: canvas)
            let inset = layout.rectangle(for: 1, source: MultiCamSessionTests.sizes[1], canvas: canvas)
            let insetSequences = rig.recorders[1].samples.items.map(\.sequenceNumber)
            var insetMatched = 0
            for sample in composed.samples.items.suffix(8) {
                let frame = try #require(sample.sample.pixelBuffer)
                #expect(frame.width == 320 && frame.height == 240 && frame.pixelFormat == .nv12)
                var mainLuma = Self.luma(frame, main)
                if case .pictureInPicture = layout {
                    // The inset covers part of the main picture: compare outside it only.
                    mainLuma = Self.luma(frame, PixelRect(x: main.x, y: main.y, width: main.width, height: inset.y - main.y))
                    let expected = try Self.expected(camera: 0, index: sample.sequenceNumber, rect: main)
                    #expect(mainLuma == Array(expected.prefix(mainLuma.count)), "main picture of composed frame \(sample.sequenceNumber)")
                } else {
                    #expect(mainLuma == (try Self.expected(camera: 0, index: sample.sequenceNumber, rect: main)), "left picture of frame \(sample.sequenceNumber)")
                }
                // The other camera's place shows one of its frames, captured no later than shortly after the main frame.
                let insetLuma = Self.luma(frame, inset)
                for index in insetSequences.reversed() where try Self.expected(camera: 1, index: index, rect: inset) == insetLuma {
                    insetMatched += 1
                    break
                }
                #expect(sample.sample.presentationTimeStamp == rig.recorders[0].samples.items.first { $0.sequenceNumber == sample.sequenceNumber }?.sample.presentationTimeStamp,
                        "a composed frame carries its main frame's time")
            }
            #expect(insetMatched >= 7, "\(insetMatched) of 8 composed frames show a frame of the second camera in its place")
            if case .sideBySide = layout {
                // Letterbox bars (the 4:3 pictures in 160x240 halves) are black.
                let bar = Self.luma(try #require(composed.samples.items.last?.sample.pixelBuffer), PixelRect(x: 0, y: 0, width: 160, height: main.y))
                #expect(!bar.isEmpty && bar.allSatisfy { $0 == 16 })
            }
        }

        /// The composition recorded as a movie; its second camera unplugged uncovers the main picture
        /// and the recording goes on; its main camera unplugged interrupts the composition.
        @Test func aCompositionIsRecordedAndFollowsItsCameras() async throws {
            let rig = try CameraRig(cameras: 2, label: "composition-record")
            defer {
                for camera in rig.cameras { try? camera.simulateReconnect() }
                rig.remove()
            }
            let canvas = VideoDimensions(width: 320, height: 240)
            let composition = try CaptureCompositionOutput(layout: .pictureInPicture(corner: .topLeft, scale: 0.25), size: canvas)
            let frames = CaptureVideoDataOutput(), movie = CaptureMovieFileOutput()
            let composed = SampleRecorder(label: "tests.composition.record")
            composed.attach(to: frames)
            let session = try Self.makeSession(rig, composition, frames: frames, movie: movie)
            let events = EventRecorder(session)
            let url = FileFixtures.directory.appendingPathComponent("composition-\(UUID().uuidString.prefix(8)).mp4")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            let recording = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: recording)
            #expect(await composed.samples.wait(forCount: 10))

            try rig.cameras[1].simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: rig.cameras[1].uniqueID))))
            let inset = CompositionLayout.pictureInPicture(corner: .topLeft, scale: 0.25).rectangle(for: 1, source: MultiCamSessionTests.sizes[1], canvas: canvas)
            let lostAt = MediaTime.now
            #expect(await composed.samples.wait { $0.filter { $0.sample.presentationTimeStamp > lostAt }.count >= 5 }, "composition stopped with its second camera")
            let uncovered = try #require(composed.samples.items.last)
            let main = try Self.expectedPicture(camera: 0, index: uncovered.sequenceNumber, rect: PixelRect(x: 0, y: 0, width: 320, height: 240))
            #expect(Self.luma(try #require(uncovered.sample.pixelBuffer), inset) == Self.luma(main, inset), "the lost camera's place shows the main picture")
            #expect(movie.isRecording)

            // The movie records the composition's device, so it ends when that device goes:
            // with the main camera.
            try rig.cameras[0].simulateDisconnect()
            #expect(await recording.finished() == .didFinish(.deviceDisconnected, usable: true))
            let recorded = await movie.finishRecording()
            #expect(!composition.device.isConnected, "the composition goes with its main camera")
            let info = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height,nb_read_frames")
            #expect(info["width"] == "320" && info["height"] == "240")
            #expect(Int(info["nb_read_frames"] ?? "") == recorded.videoFrameCount)
            #expect(recorded.videoFrameCount >= 15)
        }
    }
}
