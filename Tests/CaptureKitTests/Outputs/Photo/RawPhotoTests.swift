import Dispatch
import Foundation
import Testing
@testable import CaptureKit

/// A picture mosaicked behind a Bayer filter, for a virtual camera that streams raw samples:
/// eight vertical colour bars over the top two thirds, a grey ramp below.
enum BayerScene {
    static let bars: [(Int, Int, Int)] = [
        (200, 200, 200), (200, 200, 0), (0, 200, 200), (0, 200, 0), (200, 0, 200), (200, 0, 0), (0, 0, 200), (30, 60, 90),
    ]

    /// The scene's colour at (x, y), 8 bits a channel.
    static func rgb(x: Int, y: Int, width: Int, height: Int) -> (Int, Int, Int) {
        if y < height * 2 / 3 { return bars[x * bars.count / width] }
        let grey = x * 255 / (width - 1)
        return (grey, grey, grey)
    }

    /// The sample at (x, y) of a frame in `format`: the scene's channel the filter passes there,
    /// scaled to the format's depth.
    static func sample(x: Int, y: Int, width: Int, height: Int, format: PixelFormat) -> Int {
        let colour = format.bayerPattern![(y % 2) * 2 + x % 2]
        let (r, g, b) = rgb(x: x, y: y, width: width, height: height)
        let value = [r, g, b][Int(colour)]
        let top = (1 << format.bayerBitDepth!) - 1
        return (value * top + 127) / 255
    }

    static func frame(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, pixelFormat: format) { _, bytes, bytesPerRow throws(CaptureError) in
            for y in 0..<height {
                for x in 0..<width {
                    let value = sample(x: x, y: y, width: width, height: height, format: format)
                    if format.bayerBitDepth != 8 {
                        bytes[y * bytesPerRow + 2 * x] = UInt8(value & 0xFF)
                        bytes[y * bytesPerRow + 2 * x + 1] = UInt8(value >> 8)
                    } else {
                        bytes[y * bytesPerRow + x] = UInt8(value)
                    }
                }
            }
        }
    }

    /// Points well inside each bar and along the ramp, away from edges a demosaicer blurs.
    static func points(width: Int, height: Int) -> [(x: Int, y: Int)] {
        let barWidth = width / bars.count
        var points: [(x: Int, y: Int)] = [(width / 4, height * 5 / 6), (width / 2 + 1, height * 5 / 6 + 1)]
        for bar in bars.indices {
            let middle = bar * barWidth + barWidth / 2
            points += [(middle, height / 3), (middle + 1, height / 3 + 1)]
        }
        return points
    }
}

extension RealTimeCaptureTests {
    /// Raw photos: a camera streaming Bayer samples, its photos as DNG files read back by dcraw
    /// and exiftool (neither written here), and the other outputs given the frames demosaiced.
    @Suite(.serialized, .tags(.childProcess))
    struct RawPhotoTests {
        static let width = 320, height = 240

        /// A running session on a virtual camera streaming `format` frames of the scene.
        static func running(_ format: PixelFormat, outputs: [CaptureOutput]) async throws -> (CaptureSession, CaptureDevice) {
            let frame = try BayerScene.frame(width: width, height: height, format: format)
            let camera = try makeTestCamera("raw \(format)") { configuration in
                configuration.content = .frames([frame])
                configuration.frameRates = [30]
            }
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: outputs)
            try await session.start()
            return (session, camera)
        }

        @Test(arguments: [PixelFormat.bayerRGGB8, .bayerBGGR8, .bayerGRBG8, .bayerGBRG8, .bayerRGGB10, .bayerBGGR12, .bayerGRBG16])
        func rawPhotoIsTheSensorsSamplesInADNG(_ format: PixelFormat) async throws {
            try #require(PhotoTools.isInstalled("dcraw") && PhotoTools.isInstalled("exiftool"), "dcraw and exiftool (scripts/install-deps.sh)")
            let output = CapturePhotoOutput()
            let (session, camera) = try await Self.running(format, outputs: [output])
            defer { try? session.stopRunning(); CaptureDevice.removeVirtualDevice(camera) }
            #expect(output.availableRawPhotoPixelFormatTypes == [format])
            #expect(output.availableRawPhotoFileTypes == [.dng])
            #expect(!output.availablePhotoFileTypes.contains(.dng), "DNG is listed with the raw types only")

            let photo = try await output.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: format))
            #expect(photo.isRawPhoto && photo.fileType == .dng)
            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: Self.width, height: Self.height))
            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "photo.dng")

            let tags = try PhotoTools.exif(file, in: scratch)
            #expect(tags["DNGVersion"] as? String == "1 4 0 0", "\(tags["DNGVersion"] ?? "none")")
            #expect(tags["PhotometricInterpretation"] as? Int == 32803, "colour filter array")
            #expect(tags["CFAPattern2"] as? String == format.bayerPattern!.map(String.init).joined(separator: " "), "\(tags["CFAPattern2"] ?? "none")")
            #expect(tags["ImageWidth"] as? Int == Self.width && tags["ImageHeight"] as? Int == Self.height)
            #expect(tags["BitsPerSample"] as? Int == (format.bayerBitDepth == 8 ? 8 : 16))
            #expect(tags["WhiteLevel"] as? Int == (1 << format.bayerBitDepth!) - 1)
            #expect(tags["Model"] as? String == camera.localizedName && tags["Make"] as? String == "CaptureKit")
            #expect(tags["AsShotNeutral"] as? String == "1 1 1")
            let matrix = (tags["ColorMatrix1"] as? String ?? "").split(separator: " ").compactMap { Double($0) }
            #expect(matrix.count == 9 && abs(matrix[0] - 3.2406) < 0.001 && abs(matrix[8] - 1.057) < 0.001, "\(matrix)")

            // dcraw's document mode: the samples as stored, which must be the camera's.
            let stored = try NetpbmImage(PhotoTools.run("dcraw", ["-D", "-4", "-c", file], in: scratch))
            #expect(stored.width == Self.width && stored.height == Self.height)
            var wrong: [String] = []
            for y in stride(from: 0, to: Self.height, by: 7) {
                for x in 0..<Self.width where stored.pixel(x: x, y: y)[0] != BayerScene.sample(x: x, y: y, width: Self.width, height: Self.height, format: format) {
                    wrong.append("(\(x),\(y)) \(stored.pixel(x: x, y: y)[0])")
                }
            }
            #expect(wrong.isEmpty, "\(wrong.count) samples differ: \(wrong.prefix(6))")

            // Demosaiced by dcraw, linear, in the sensor's colours, no white balance: each bar
            // comes back as its colour, which only the right CFAPattern gives.
            let colour = try NetpbmImage(PhotoTools.run("dcraw", ["-c", "-4", "-o", "0", "-r", "1", "1", "1", "1", "-q", "0", file], in: scratch))
            for point in BayerScene.points(width: Self.width, height: Self.height) {
                let (r, g, b) = BayerScene.rgb(x: point.x, y: point.y, width: Self.width, height: Self.height)
                let got = colour.pixel(x: point.x, y: point.y).map { Double($0) / 257 }
                #expect(zip(got, [r, g, b]).allSatisfy { abs($0 - Double($1)) <= 3 }, "(\(point.x),\(point.y)): dcraw \(got), scene \((r, g, b))")
            }
        }

        @Test(arguments: [PixelFormat.bayerBGGR8, .bayerGBRG10, .bayerRGGB16])
        func otherOutputsGetTheFramesDemosaiced(_ format: PixelFormat) async throws {
            let video = CaptureVideoDataOutput()
            video.videoSettings = VideoTarget(pixelFormat: .bgra)
            let recorder = SampleRecorder()
            video.setSampleBufferDelegate(recorder, queue: recorder.queue)
            let output = CapturePhotoOutput()
            let (session, camera) = try await Self.running(format, outputs: [video, output])
            defer { try? session.stopRunning(); CaptureDevice.removeVirtualDevice(camera) }
            #expect(await recorder.samples.wait(forCount: 1, timeout: .seconds(20)))
            let frame = try #require(recorder.samples.items.first?.sample.pixelBuffer)
            #expect(frame.pixelFormat == .bgra)
            // A JPEG from the same stream, decoded by FFmpeg.
            let jpeg = try await output.capturePhoto(with: CapturePhotoSettings(fileType: .jpeg))
            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(jpeg.fileDataRepresentation()), as: "photo.jpg")
            let decoded = try NetpbmImage(PhotoTools.run("ffmpeg", ["-v", "error", "-i", file, "-f", "image2pipe", "-vcodec", "ppm", "-"], in: scratch))
            let image = try jpeg.image()
            for point in BayerScene.points(width: Self.width, height: Self.height) {
                let (r, g, b) = BayerScene.rgb(x: point.x, y: point.y, width: Self.width, height: Self.height)
                let bgra = frame.withUnsafeBytes(ofPlane: 0) { bytes in
                    (0..<3).map { Int(bytes[point.y * frame.bytesPerRow(ofPlane: 0) + point.x * 4 + $0]) }
                }
                #expect(abs(bgra[2] - r) <= 4 && abs(bgra[1] - g) <= 4 && abs(bgra[0] - b) <= 4, "BGRA (\(point.x),\(point.y)) \(bgra), scene \((r, g, b))")
                let fromJPEG = decoded.pixel(x: point.x, y: point.y)
                #expect(zip(fromJPEG, [r, g, b]).allSatisfy { abs($0 - $1) <= 12 }, "JPEG (\(point.x),\(point.y)) \(fromJPEG), scene \((r, g, b))")
            }
            #expect(image.width == Self.width && image.height == Self.height)
        }

        /// A recording from a raw camera: H.264 of the demosaiced frames, checked by ffprobe and
        /// by FFmpeg's decoder against the scene.
        @Test func aRecordingFromARawCameraShowsTheScene() async throws {
            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: 1, timescale: 2)
            let frame = try BayerScene.frame(width: Self.width, height: Self.height, format: .bayerGRBG8)
            let (session, camera, _) = try makeRecordingSession("raw recording", audio: false, outputs: [movie]) { configuration in
                configuration.content = .frames([frame])
                configuration.frameRates = [30]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try await session.start()
            let url = MovieFiles.path("raw-recording", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(await delegate.finished(timeout: .seconds(60)) != nil, "the recording never finished")
            try await session.stop()
            let probe = try ProbedMovie.probe(url.path)
            #expect(probe.video?.codec == "h264" && (probe.video?.frames ?? 0) >= 10, "\(probe.streams.map(\.codec)) \(probe.video?.frames ?? 0)")
            let scratch = try PhotoScratch()
            let first = try NetpbmImage(PhotoTools.run("ffmpeg", ["-v", "error", "-i", url.path, "-frames:v", "1", "-f", "image2pipe", "-vcodec", "ppm", "-"],
                                                       in: scratch))
            #expect(first.width == Self.width && first.height == Self.height)
            for point in BayerScene.points(width: Self.width, height: Self.height) {
                let (r, g, b) = BayerScene.rgb(x: point.x, y: point.y, width: Self.width, height: Self.height)
                let got = first.pixel(x: point.x, y: point.y)
                #expect(zip(got, [r, g, b]).allSatisfy { abs($0 - $1) <= 16 }, "(\(point.x),\(point.y)) \(got), scene \((r, g, b))")
            }
        }

        /// `init(rawPixelFormatType:processedFormat:)`: one request, two photos of one frame —
        /// the DNG (its samples the sensor's, read by dcraw) and then the JPEG (the frame
        /// demosaiced, decoded by FFmpeg) — through the delegate (two `didFinishProcessingPhoto`
        /// before `didFinishCapture`) and through `capturePhotos(with:)`.
        @Test func rawAndProcessedPhotosComeFromOneFrame() async throws {
            try #require(PhotoTools.isInstalled("dcraw") && PhotoTools.isInstalled("exiftool"), "dcraw and exiftool (scripts/install-deps.sh)")
            let format = PixelFormat.bayerGRBG10
            let output = CapturePhotoOutput()
            let (session, camera) = try await Self.running(format, outputs: [output])
            defer { try? session.stopRunning(); CaptureDevice.removeVirtualDevice(camera) }

            let delegate = PhotoDelegateRecorder()
            let settings = CapturePhotoSettings(rawPixelFormat: format, processedFileType: .jpeg)
            output.capturePhoto(with: settings, delegate: delegate, queue: delegate.queue)
            #expect(await delegate.waitForFinished(1))
            #expect(delegate.calls(for: settings.uniqueID).map(\.kind) == [.willBegin, .willCapture, .didCapture, .didFinishProcessing, .didFinishProcessing, .didFinishCapture])
            #expect(delegate.calls(for: settings.uniqueID).allSatisfy { $0.error == nil }, "\(delegate.calls.items)")
            let delegated = delegate.photos.items
            #expect(delegated.map(\.fileType) == [.dng, .jpeg] && delegated.map(\.isRawPhoto) == [true, false])
            #expect(delegated.allSatisfy { $0.resolvedSettings.expectedPhotoCount == 2 })

            let photos = try await output.capturePhotos(with: CapturePhotoSettings(rawPixelFormat: format, processedFileType: .jpeg))
            for pair in [delegated, photos] {
                let (raw, processed) = (pair[0], pair[1])
                #expect(raw.timestamp == processed.timestamp && raw.sourceSequenceNumber == processed.sourceSequenceNumber, "one frame")
                #expect(processed.resolvedSettings.photoDimensions == PhotoDimensions(width: Self.width, height: Self.height))
                let scratch = try PhotoScratch()
                let dng = try scratch.write(try #require(raw.fileDataRepresentation()), as: "pair.dng")
                let stored = try NetpbmImage(PhotoTools.run("dcraw", ["-D", "-4", "-c", dng], in: scratch))
                let y = Self.height / 3
                let wrong = (0..<Self.width).filter {
                    stored.pixel(x: $0, y: y)[0] != BayerScene.sample(x: $0, y: y, width: Self.width, height: Self.height, format: format)
                }
                #expect(wrong.isEmpty, "\(wrong.count) raw samples differ from the scene's")
                let jpeg = try scratch.write(try #require(processed.fileDataRepresentation()), as: "pair.jpg")
                #expect(try PhotoTools.exif(jpeg, in: scratch)["FileType"] as? String == "JPEG")
                let decoded = try NetpbmImage(PhotoTools.run("ffmpeg", ["-v", "error", "-i", jpeg, "-f", "image2pipe", "-vcodec", "ppm", "-"], in: scratch))
                for point in BayerScene.points(width: Self.width, height: Self.height) {
                    let (r, g, b) = BayerScene.rgb(x: point.x, y: point.y, width: Self.width, height: Self.height)
                    let got = decoded.pixel(x: point.x, y: point.y)
                    #expect(zip(got, [r, g, b]).allSatisfy { abs($0 - $1) <= 12 }, "JPEG (\(point.x),\(point.y)) \(got), scene \((r, g, b))")
                }
            }

            // One photo's API refuses a two-photo request; a processed type must be one that
            // can be written, and goes with a raw photo only.
            let single = try await #require(throws: CaptureError.self) {
                _ = try await output.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: format, processedFileType: .jpeg))
            }
            #expect(single.code == .invalidArgument && single.message.contains("capturePhotos"), "\(single)")
            let rawTwice = try await #require(throws: CaptureError.self) {
                _ = try await output.capturePhotos(with: CapturePhotoSettings(rawPixelFormat: format, processedFileType: .dng))
            }
            #expect(rawTwice.code == .unsupportedFormat, "\(rawTwice)")
            var processedOnly = CapturePhotoSettings(fileType: .jpeg)
            processedOnly.processedFileType = .png
            let notRaw = try await #require(throws: CaptureError.self) { _ = try await output.capturePhotos(with: processedOnly) }
            #expect(notRaw.code == .invalidArgument, "\(notRaw)")
        }

        @Test func aRawPhotoNeedsABayerStreamAndItsOwnFormat() async throws {
            let output = CapturePhotoOutput()
            let (session, camera) = try await Self.running(.bayerRGGB8, outputs: [output])
            defer { try? session.stopRunning(); CaptureDevice.removeVirtualDevice(camera) }
            let other = try await #require(throws: CaptureError.self) {
                _ = try await output.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: .bayerBGGR8))
            }
            #expect(other.code == .unsupportedFormat && other.message.contains("bayer_rggb8"), "\(other)")
            var mixed = CapturePhotoSettings(fileType: .jpeg)
            mixed.rawPhotoPixelFormat = .bayerRGGB8
            let mismatch = try await #require(throws: CaptureError.self) { _ = try await output.capturePhoto(with: mixed) }
            #expect(mismatch.code == .invalidArgument, "\(mismatch)")

            let yuv = try makePhotoCamera("raw from yuv")
            defer { CaptureDevice.removeVirtualDevice(yuv) }
            let processed = CapturePhotoOutput()
            let yuvSession = try makeSession(camera: yuv, preset: .inputPriority, outputs: [processed])
            try await yuvSession.start()
            defer { try? yuvSession.stopRunning() }
            #expect(processed.availableRawPhotoPixelFormatTypes.isEmpty && processed.availableRawPhotoFileTypes.isEmpty)
            let refused = try await #require(throws: CaptureError.self) {
                _ = try await processed.capturePhoto(with: CapturePhotoSettings(fileType: .dng))
            }
            #expect(refused.code == .unsupportedFormat && refused.message.contains("Bayer"), "\(refused)")
        }
    }
}
