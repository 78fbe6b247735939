import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitLibrary
@testable import CaptureKitMedia

/// `AssetImageGenerator`, checked against ffmpeg's own decodes of the same files (pixels by
/// PSNR), ffprobe's keyframe list and sizes, and pictures with a known coloured corner (the
/// media and the oracles are the ffmpeg command line: child processes; the arithmetic and
/// in-memory tests need none).
@Suite("AssetImageGenerator", .timeLimit(.minutes(3)), .excludable)
struct AssetImageGeneratorTests {
    private static let frame = MediaTime(value: 1, timescale: 30)

    private func exact(_ generator: AssetImageGenerator) -> AssetImageGenerator {
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        return generator
    }

    // MARK: Transform and size

    @Test(.tags(.childProcess)) func rotatedVideoIsPortraitWithTheTransformAndLandscapeWithout() throws {
        let asset = try MediaAsset(url: try FileFixtures.rotated())
        #expect(asset.naturalSize == MediaAsset.Size(width: 160, height: 120))
        #expect(asset.preferredTransform.rotation % 180 == 90)
        let generator = AssetImageGenerator(asset: asset)
        #expect(generator.appliesPreferredTrackTransform == false, "off by default, as in AVFoundation")
        let stored = try generator.copyImage(at: .zero).image
        #expect((stored.width, stored.height) == (160, 120))
        #expect(stored.pixelFormat == .bgra)
        generator.appliesPreferredTrackTransform = true
        let upright = try generator.copyImage(at: .zero).image
        #expect((upright.width, upright.height) == (120, 160))
        // What ffmpeg shows (it turns by the display matrix by default).
        let reference = try ThumbnailFixtures.ffmpegFrame(asset.fileURL)
        #expect(FileFixtures.psnr(upright.packedBytes(), reference) >= 40)
    }

    @Test(.tags(.childProcess)) func maximumSizeKeepsTheAspectRatioAndNeverEnlarges() throws {
        let generator = AssetImageGenerator(asset: try MediaAsset(url: try FileFixtures.mp4()))
        let cases: [((Int, Int), (Int, Int))] = [
            ((100, 0), (100, 75)), ((0, 60), (80, 60)), ((100, 50), (67, 50)), ((0, 0), (320, 240)),
            ((1000, 0), (320, 240)), ((1000, 1000), (320, 240)), ((1, 0), (1, 1)),
        ]
        for (maximum, expected) in cases {
            generator.maximumSize = MediaAsset.Size(width: maximum.0, height: maximum.1)
            let image = try generator.copyImage(at: .zero).image
            #expect((image.width, image.height) == expected, "maximumSize \(maximum)")
        }
        // The scaled picture is ffmpeg's bicubic scale of the same frame.
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        let small = try generator.copyImage(at: .zero).image
        let reference = [UInt8](try FileFixtures.run("ffmpeg", ["-v", "error", "-nostdin", "-i", try FileFixtures.mp4().path, "-vf", "scale=100:75",
                                                                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgra", "-"]))
        #expect(FileFixtures.psnr(small.packedBytes(), reference) >= 35)
    }

    @Test(.tags(.childProcess)) func maximumSizeAppliesAfterTheTransform() throws {
        let generator = AssetImageGenerator(asset: try MediaAsset(url: try FileFixtures.rotated()))
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        var image = try generator.copyImage(at: .zero).image
        #expect((image.width, image.height) == (100, 75))
        generator.appliesPreferredTrackTransform = true
        image = try generator.copyImage(at: .zero).image
        #expect((image.width, image.height) == (100, 133), "120x160 shown, so 100 wide is 133 high")
        generator.maximumSize = MediaAsset.Size(width: 0, height: 80)
        image = try generator.copyImage(at: .zero).image
        #expect((image.width, image.height) == (60, 80))
    }

    @Test func fittedSizeArithmetic() {
        func fit(_ w: Int, _ h: Int, _ mw: Int, _ mh: Int) -> MediaAsset.Size {
            AssetImageGenerator.fittedSize(MediaAsset.Size(width: w, height: h), maximum: MediaAsset.Size(width: mw, height: mh))
        }
        #expect(fit(1920, 1080, 100, 0) == MediaAsset.Size(width: 100, height: 56))
        #expect(fit(1080, 1920, 100, 0) == MediaAsset.Size(width: 100, height: 178))
        #expect(fit(1920, 1080, 0, 0) == MediaAsset.Size(width: 1920, height: 1080))
        #expect(fit(1920, 1080, 400, 400) == MediaAsset.Size(width: 400, height: 225))
        #expect(fit(10000, 10, 100, 0) == MediaAsset.Size(width: 100, height: 1))
    }

    /// Each quarter turn moves the red top-left block where a clockwise turn puts it, and the
    /// whole picture matches ffmpeg's own upright decode.
    @Test(.tags(.childProcess), arguments: [90, 180, 270])
    func rotationTurnsThePixels(tag: Int) throws {
        let asset = try MediaAsset(url: try ThumbnailFixtures.corner(rotate: tag))
        let rotation = asset.preferredTransform.rotation
        #expect(rotation != 0)
        let generator = AssetImageGenerator(asset: asset)
        let stored = try generator.copyImage(at: .zero).image
        #expect(ThumbnailFixtures.isRed(stored, 5, 5) && !ThumbnailFixtures.isRed(stored, 154, 5))
        generator.appliesPreferredTrackTransform = true
        let image = try generator.copyImage(at: .zero).image
        let (w, h) = (image.width, image.height)
        #expect(rotation == 180 ? (w, h) == (160, 120) : (w, h) == (120, 160))
        // Where the stored top-left corner lands after `rotation` degrees clockwise.
        let corners = [(5, 5), (w - 6, 5), (w - 6, h - 6), (5, h - 6)]   // TL, TR, BR, BL
        let expected = corners[rotation / 90]
        for corner in corners {
            let red = ThumbnailFixtures.isRed(image, corner.0, corner.1)
            #expect(red == (corner == expected), "rotation \(rotation): corner \(corner) red=\(red)")
        }
        #expect(FileFixtures.psnr(image.packedBytes(), try ThumbnailFixtures.ffmpegFrame(asset.fileURL)) >= 40)
    }

    @Test(.tags(.childProcess)) func everyQuarterTurnIsCovered() throws {
        let rotations = try Set([90, 180, 270].map { try MediaAsset(url: try ThumbnailFixtures.corner(rotate: $0)).preferredTransform.rotation })
        #expect(rotations == [90, 180, 270])
    }

    /// A textured movie turned upright, at an exact frame, matches ffmpeg pixel for pixel (PSNR).
    @Test(.tags(.childProcess), arguments: [90, 270])
    func rotatedExactFrameMatchesFFmpeg(tag: Int) throws {
        let asset = try MediaAsset(url: try ThumbnailFixtures.gop(rotate: tag))
        let generator = exact(AssetImageGenerator(asset: asset))
        generator.appliesPreferredTrackTransform = true
        let (image, actual) = try generator.copyImage(at: Self.frame * 40)
        #expect(actual == Self.frame * 40)
        #expect((image.width, image.height) == (240, 320))
        let reference = try ThumbnailFixtures.ffmpegFrame(asset.fileURL, at: 39.5 / 30)
        #expect(FileFixtures.psnr(image.packedBytes(), reference) >= 40)
    }

    /// Mirrored transforms: the mirror comes first (left to right as stored), then the turn.
    @Test func mirroredTransformsMovePixelsAsDocumented() throws {
        let (w, h) = (3, 2)
        let source = try PixelBuffer(width: w, height: h, pixelFormat: .bgra)
        source.withUnsafeMutableBytes(ofPlane: 0) { bytes in
            for y in 0..<h { for x in 0..<w { bytes[y * source.bytesPerRow(ofPlane: 0) + x * 4] = UInt8(y * w + x) } }
        }
        for rotation in [0, 90, 180, 270] {
            for mirrored in [false, true] {
                let out = try FrameRotation.apply(VideoTransform(rotation: rotation, isMirrored: mirrored), to: source)
                for y in 0..<h {
                    for x in 0..<w {
                        var (px, py, pw, ph) = (mirrored ? w - 1 - x : x, y, w, h)
                        for _ in 0..<(rotation / 90) { (px, py, pw, ph) = (ph - 1 - py, px, ph, pw) }
                        #expect(ThumbnailFixtures.pixel(out, px, py).b == UInt8(y * w + x), "rotation \(rotation) mirrored \(mirrored)")
                    }
                }
            }
        }
    }

    // MARK: Times

    /// With zero tolerances each frame is the one ffmpeg decodes there, and its time is exact;
    /// requests go back and forth so the kept decoder seeks both ways.
    @Test(.tags(.childProcess)) func exactFramesMatchFFmpeg() throws {
        let url = try ThumbnailFixtures.gop()
        let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: url)))
        for index in [45, 0, 1, 29, 30, 31, 119, 59, 61, 89, 100, 2] {
            let (image, actual) = try generator.copyImage(at: Self.frame * Int64(index))
            #expect(actual == Self.frame * Int64(index), "frame \(index): \(actual)")
            // ffmpeg's -ss gives the first frame at or after the time: half a frame early is frame `index`.
            let reference = try ThumbnailFixtures.ffmpegFrame(url, at: max(0, (Double(index) - 0.5) / 30))
            let same = FileFixtures.psnr(image.packedBytes(), reference)
            #expect(same >= 40, "frame \(index): \(same) dB")
            if index < 119 {
                let next = FileFixtures.psnr(image.packedBytes(), try ThumbnailFixtures.ffmpegFrame(url, at: (Double(index) + 0.5) / 30))
                #expect(next < same - 5, "frame \(index) is told apart from frame \(index + 1): \(next) vs \(same) dB")
            }
        }
    }

    /// Between two frames, the exact picture is the frame on screen: the earlier one.
    @Test(.tags(.childProcess)) func exactTimeBetweenFramesGivesTheFrameOnScreen() throws {
        let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: try ThumbnailFixtures.gop())))
        for index in [0, 44, 75, 118] {
            let between = MediaTime(value: Int64(index) * 10 + 7, timescale: 300)
            let (image, actual) = try generator.copyImage(at: between)
            #expect(actual == Self.frame * Int64(index))
            #expect(actual <= between && between - actual < Self.frame)
            #expect(image.hasSamePixels(as: try generator.copyImage(at: Self.frame * Int64(index)).image))
        }
    }

    /// The default (infinite) tolerances give the keyframe at or before the time.
    @Test(.tags(.childProcess)) func defaultTolerancesGiveTheKeyframeBefore() throws {
        let url = try ThumbnailFixtures.gop()
        let keyframes = try ThumbnailFixtures.keyframeTimes(url)
        #expect(keyframes == [0, 1, 2, 3])
        let asset = try MediaAsset(url: url)
        let generator = AssetImageGenerator(asset: asset)
        #expect(generator.requestedTimeToleranceBefore.isPositiveInfinity && generator.requestedTimeToleranceAfter.isPositiveInfinity)
        let precise = exact(AssetImageGenerator(asset: asset))
        for seconds in [0.5, 1.5, 2.9, 2.0, 3.99, 1.02] {
            let time = MediaTime(seconds: seconds, preferredTimescale: 600)
            let (image, actual) = try generator.copyImage(at: time)
            let keyframe = try #require(keyframes.last { $0 <= seconds })
            #expect(actual == MediaTime(seconds: keyframe, preferredTimescale: 600), "\(seconds) s gave \(actual)")
            #expect(image.hasSamePixels(as: try precise.copyImage(at: actual).image))
        }
    }

    @Test(.tags(.childProcess)) func tolerancesBoundTheFrameChosen() throws {
        let generator = AssetImageGenerator(asset: try MediaAsset(url: try ThumbnailFixtures.gop()))
        // 0.1 s before allowed: the first frame of [1.4, 1.5] decoded from the keyframe at 1 s.
        generator.requestedTimeToleranceBefore = MediaTime(value: 1, timescale: 10)
        generator.requestedTimeToleranceAfter = .zero
        #expect(try generator.copyImage(at: MediaTime(value: 3, timescale: 2)).actualTime == Self.frame * 42)
        // Nothing before, anything after: the first frame at or after the time.
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .positiveInfinity
        #expect(try generator.copyImage(at: MediaTime(value: 151, timescale: 100)).actualTime == Self.frame * 46)
    }

    @Test(.tags(.childProcess)) func timesOutsideTheFileClamp() throws {
        let asset = try MediaAsset(url: try ThumbnailFixtures.gop())
        let generator = exact(AssetImageGenerator(asset: asset))
        let last = try generator.copyImage(at: Self.frame * 119)
        for time in [MediaTime(value: 10, timescale: 1), .positiveInfinity, asset.duration] {
            let (image, actual) = try generator.copyImage(at: time)
            #expect(actual == Self.frame * 119, "\(time) gave \(actual)")
            #expect(image.hasSamePixels(as: last.image))
        }
        for time in [MediaTime(value: -5, timescale: 1), .negativeInfinity] {
            #expect(try generator.copyImage(at: time).actualTime == .zero)
        }
        // With the default tolerances the end is the last keyframe.
        #expect(try AssetImageGenerator(asset: asset).copyImage(at: MediaTime(value: 60, timescale: 1)).actualTime == MediaTime(value: 3, timescale: 1))
    }

    // MARK: Photos, encoded thumbnails, async

    @Test(.tags(.childProcess)) func aJPEGPhotoGivesItsImage() throws {
        let url = try ThumbnailFixtures.jpeg()
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo)
        let generator = AssetImageGenerator(asset: asset)
        let (image, actual) = try generator.copyImage(at: .zero)
        #expect((image.width, image.height) == (200, 150) && actual == .zero)
        #expect(FileFixtures.psnr(image.packedBytes(), try ThumbnailFixtures.ffmpegFrame(url)) >= 40)
        // Any time gives the photo; the kept decoder starts again.
        let again = try exact(generator).copyImage(at: MediaTime(value: 5, timescale: 1))
        #expect(again.actualTime == .zero && again.image.hasSamePixels(as: image))
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        let small = try generator.copyImage(at: .zero).image
        #expect((small.width, small.height) == (100, 75))
    }

    @Test(.tags(.childProcess)) func aPNGWithAlphaKeepsItsPixels() throws {
        let url = try ThumbnailFixtures.png()
        let asset = try MediaAsset(url: url)
        #expect(asset.kind == .photo)
        let image = try AssetImageGenerator(asset: asset).copyImage(at: .zero).image
        #expect(image.packedBytes() == (try ThumbnailFixtures.ffmpegFrame(url)))
    }

    @Test(.tags(.childProcess)) func anAudioFileWithCoverArtGivesTheCover() throws {
        let asset = try MediaAsset(url: try ThumbnailFixtures.song())
        #expect(asset.tracks.map(\.mediaType) == [.audio])
        let (image, actual) = try AssetImageGenerator(asset: asset).copyImage(at: MediaTime(value: 1, timescale: 2))
        #expect((image.width, image.height) == (200, 150) && actual == .zero)
        #expect(FileFixtures.psnr(image.packedBytes(), try ThumbnailFixtures.ffmpegFrame(try ThumbnailFixtures.jpeg())) >= 40)
    }

    @Test(.tags(.childProcess)) func encodedThumbnailsHaveTheScaledSize() throws {
        let generator = AssetImageGenerator(asset: try MediaAsset(url: try FileFixtures.rotated()))
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        generator.appliesPreferredTrackTransform = true
        let image = try generator.copyImage(at: .zero).image
        let (jpeg, jpegTime) = try generator.jpegData(at: .zero)
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpegTime == .zero)
        let jpegURL = FileFixtures.directory.appendingPathComponent("thumb-\(UUID().uuidString.prefix(8)).jpg")
        try jpeg.write(to: jpegURL)
        #expect(try ThumbnailFixtures.size(jpegURL) == (100, 133))
        let decoded = try ThumbnailFixtures.ffmpegFrame(jpegURL)
        // Quality 85: the brightness within ~35 dB (the colour is halved by 4:2:0).
        #expect(FileFixtures.psnr(ThumbnailFixtures.luma(image.packedBytes()), ThumbnailFixtures.luma(decoded)) >= 33)

        let (png, _) = try generator.pngData(at: .zero)
        let pngURL = FileFixtures.directory.appendingPathComponent("thumb-\(UUID().uuidString.prefix(8)).png")
        try png.write(to: pngURL)
        #expect(try ThumbnailFixtures.ffmpegFrame(pngURL) == image.packedBytes(), "PNG is lossless")
        #expect(throws: CaptureError.self) { try generator.jpegData(at: .zero, quality: 0) }
    }

    @Test(.tags(.childProcess)) func asyncImagesMatchTheSynchronousOnes() async throws {
        let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: try ThumbnailFixtures.gop())))
        async let a = generator.image(at: Self.frame * 10)
        async let b = generator.image(at: Self.frame * 70)
        async let c = generator.image(at: Self.frame * 100)
        let results = try await [a, b, c]
        for (result, index) in zip(results, [10, 70, 100]) {
            let expected = try generator.copyImage(at: Self.frame * Int64(index))
            #expect(result.actualTime == expected.actualTime)
            #expect(result.image.hasSamePixels(as: expected.image))
        }
    }

    // MARK: Errors

    @Test func filesThatAreNotMediaAreRefusedWhenOpened() throws {
        let empty = FileFixtures.directory.appendingPathComponent("thumb-empty.mp4")
        try Data().write(to: empty)
        let text = FileFixtures.directory.appendingPathComponent("thumb-notes.dat")
        try Data(String(repeating: "not a movie at all\n", count: 50).utf8).write(to: text)
        for (url, code) in [(empty, CaptureError.Code.unsupportedFile), (try FileFixtures.noise(), .unsupportedFile), (text, .unsupportedFile),
                            (FileFixtures.directory.appendingPathComponent("missing.mp4"), .fileError)] {
            #expect(throws: CaptureError.self) { try MediaAsset(url: url) }
            do {
                _ = try MediaAsset(url: url)
            } catch {
                #expect(error.code == code, "\(url.lastPathComponent): \(error)")
            }
        }
    }

    /// The file changes after its asset was made: each damage gives its typed error.
    @Test(.tags(.childProcess)) func damagedFilesGiveTypedErrors() throws {
        let source = try ThumbnailFixtures.gop()
        func damaged(_ name: String, _ damage: (URL) throws -> Void) throws -> AssetImageGenerator {
            let url = try ThumbnailFixtures.copy(of: source, named: name)
            let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: url)))
            try damage(url)
            return generator
        }
        func code(_ generator: AssetImageGenerator, at time: MediaTime = .zero) -> CaptureError.Code? {
            do {
                _ = try generator.copyImage(at: time)
                return nil
            } catch {
                return error.code
            }
        }
        let data = try Data(contentsOf: source)
        #expect(code(try damaged("empty.mp4") { try Data().write(to: $0) }) == .unsupportedFile)
        #expect(code(try damaged("noise.mp4") { try Data(contentsOf: try FileFixtures.noise()).write(to: $0) }) == .unsupportedFile)
        #expect(code(try damaged("gone.mp4") { try FileManager.default.removeItem(at: $0) }) == .fileError)
        // Its index is at the end (no faststart): half a file has none.
        #expect(code(try damaged("half.mp4") { try data.prefix(data.count / 2).write(to: $0) }) == .unsupportedFile)
    }

    /// A file whose index promises more than it holds: the missing frames give `.corruptFile`.
    @Test(.tags(.childProcess)) func truncatedMovieGivesCorruptFileForTheMissingPart() throws {
        let url = try FileFixtures.truncated()
        let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: url)))
        #expect(try generator.copyImage(at: .zero).actualTime == .zero, "the first frames are there")
        #expect(throws: CaptureError.self) { try generator.copyImage(at: MediaTime(value: 19, timescale: 10)) }
        do {
            _ = try generator.copyImage(at: MediaTime(value: 19, timescale: 10))
        } catch {
            #expect(error.code == .corruptFile, "\(error)")
        }
        // The generator recovers: the start still works after the failure.
        #expect(try generator.copyImage(at: .zero).actualTime == .zero)
    }

    /// Garbage over the coded pictures never traps: each request gives an image or a typed error.
    @Test(.tags(.childProcess)) func garbledPicturesNeverTrap() throws {
        let source = try ThumbnailFixtures.gop()
        let url = try ThumbnailFixtures.copy(of: source, named: "garbled.mp4")
        let generator = exact(AssetImageGenerator(asset: try MediaAsset(url: url)))
        var data = try Data(contentsOf: url)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        // The index (moov) is at the end: garble the middle of the media data.
        for offset in stride(from: data.count / 8, to: data.count / 2, by: 7) {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            data[offset] = UInt8(truncatingIfNeeded: state >> 56)
        }
        try data.write(to: url)
        for index in [0, 15, 40, 75, 110] {
            do {
                let image = try generator.copyImage(at: Self.frame * Int64(index)).image
                #expect(image.width == 320 && image.height == 240)
            } catch {
                #expect([.corruptFile, .unsupportedFile].contains(error.code), "\(error)")
            }
        }
    }

    @Test(.tags(.childProcess)) func audioOnlyAndBadArgumentsGiveTypedErrors() throws {
        let audio = AssetImageGenerator(asset: try MediaAsset(url: try FileFixtures.audioOnly()))
        #expect(throws: CaptureError.self) { try audio.copyImage(at: .zero) }
        do { _ = try audio.copyImage(at: .zero) } catch { #expect(error.code == .unsupportedFile) }

        let generator = AssetImageGenerator(asset: try MediaAsset(url: try FileFixtures.mp4()))
        func code(_ body: () throws -> Void) -> CaptureError.Code? {
            do { try body(); return nil } catch { return (error as? CaptureError)?.code ?? .internalError }
        }
        #expect(code { _ = try generator.copyImage(at: .invalid) } == .invalidArgument)
        #expect(code { _ = try generator.copyImage(at: .indefinite) } == .invalidArgument)
        generator.requestedTimeToleranceBefore = MediaTime(value: -1, timescale: 1)
        #expect(code { _ = try generator.copyImage(at: .zero) } == .invalidArgument)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .negativeInfinity
        #expect(code { _ = try generator.copyImage(at: .zero) } == .invalidArgument)
        generator.requestedTimeToleranceAfter = .zero
        generator.maximumSize = MediaAsset.Size(width: -1, height: 0)
        #expect(code { _ = try generator.copyImage(at: .zero) } == .invalidArgument)
        generator.maximumSize = MediaAsset.Size(width: 0, height: 0)
        #expect(code { _ = try generator.copyImage(at: .zero) } == nil)
    }
}

extension RealTimeCaptureTests {
    /// `AssetImageGenerator` on a movie CaptureKit records from the virtual camera in real time.
    @Suite(.tags(.childProcess))
    struct AssetImageGeneratorRecordingTests {
        /// A portrait movie recorded by CaptureKit itself (its rotation is a display matrix): the
        /// 100-pixel cover image is upright, and its frames are ffmpeg's upright frames.
        @Test func portraitRecordingGivesAnUprightCover() async throws {
            let frameDuration = MediaTime(value: 1, timescale: 30)
            let movie = CaptureMovieFileOutput()
            movie.maxRecordedDuration = MediaTime(value: 1, timescale: 1)
            let (session, camera, _) = try makeRecordingSession("thumbnail", audio: false, outputs: [movie])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            try #require(movie.connection(with: .video)).videoOrientation = .portrait
            try await session.start()
            let url = MovieFiles.path("thumbnail-portrait", "mov")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            #expect(await delegate.finished(timeout: .seconds(60)) != nil, "the recording never finished")
            try await session.stop()
            let timeline = try MovieTimeline(url.path, frameDuration: frameDuration)
            timeline.expectAccounted(movie.lastRecordedMovie, probe: try ProbedMovie.probe(url.path), covering: 30, limit: 30)

            let asset = try MediaAsset(url: url)
            #expect(asset.naturalSize == MediaAsset.Size(width: 320, height: 240))
            #expect(asset.preferredTransform.rotation == 90)
            let generator = AssetImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
            let (cover, coverTime) = try generator.jpegData(at: .zero)
            #expect(coverTime == .zero)
            let coverURL = FileFixtures.directory.appendingPathComponent("thumb-cover-\(UUID().uuidString.prefix(8)).jpg")
            try cover.write(to: coverURL)
            #expect(try ThumbnailFixtures.size(coverURL) == (100, 133))

            // A frame the file holds from the middle of it (a busy machine may have had the
            // recording drop some: their slots hold none).
            let slot = try #require(timeline.slots.first { $0 >= timeline.span / 2 })
            let time = frameDuration * Int64(slot)
            generator.maximumSize = MediaAsset.Size(width: 0, height: 0)
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            let (image, actual) = try generator.copyImage(at: time)
            #expect(actual == time)
            #expect((image.width, image.height) == (240, 320))
            let reference = try ThumbnailFixtures.ffmpegFrame(url, at: (Double(slot) - 0.5) / 30)
            #expect(FileFixtures.psnr(image.packedBytes(), reference) >= 40)
        }
    }
}
