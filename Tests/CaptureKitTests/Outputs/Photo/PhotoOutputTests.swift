import Dispatch
import Foundation
import Testing
@testable import CaptureKit

/// The photo output where no frame is involved: settings, and an output outside any session.
@Suite(.excludable)
struct PhotoOutputWithoutFramesTests {
    @Test func settingsHaveUniqueIdentifiers() {
        let a = CapturePhotoSettings(), b = CapturePhotoSettings()
        var c = CapturePhotoSettings(from: a)
        #expect(a.uniqueID != b.uniqueID && a.uniqueID != c.uniqueID)
        c.quality = 0.5
        let d = CapturePhotoSettings(from: c)
        #expect(d.quality == 0.5 && d.fileType == .jpeg && d.uniqueID != c.uniqueID)
    }

    @Test func outputOutsideASessionFails() async throws {
        let output = CapturePhotoOutput()
        let recorder = PhotoDelegateRecorder()
        let settings = CapturePhotoSettings()
        output.capturePhoto(with: settings, delegate: recorder)
        #expect(await recorder.waitForFinished(1))
        #expect(isCompleteSequence(recorder.calls(for: settings.uniqueID), error: .invalidState), "\(recorder.calls.items)")
        #expect(output.supportedMaxPhotoDimensions.isEmpty)
        #expect(output.supportedFlashModes == [.off])
    }
}

extension RealTimeCaptureTests {
    /// Photos from a running session: decoded by other decoders and compared with the exact
    /// frame the virtual camera made, EXIF read back by exiftool, the delegate sequence, errors.
    @Suite(.serialized, .tags(.childProcess))
    struct PhotoOutputTests {
        /// A running 640x480 session with a photo output (and `extraOutputs`).
        static func running(_ camera: CaptureDevice, extraOutputs: [CaptureOutput] = []) async throws -> (CaptureSession, CapturePhotoOutput) {
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output] + extraOutputs)
            try await session.start()
            return (session, output)
        }

        /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC`, in seconds: of a few readings of the wall
        /// clock between two of the monotonic one, the one with the least time between them.
        static func wallClockOffset() -> Double {
            var best = (gap: Int64.max, offset: 0.0)
            for _ in 0..<5 {
                let before = MonotonicClock.nanoseconds()
                let wall = Date().timeIntervalSince1970
                let after = MonotonicClock.nanoseconds()
                if after - before < best.gap { best = (after - before, wall - Double(before / 2 + after / 2) / 1e9) }
            }
            return best.offset
        }

        @Test func jpegFromNV12IsTheFrameOfItsIndex() async throws {
            let camera = try makePhotoCamera("jpeg nv12")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let photo = try await output.capturePhoto(with: CapturePhotoSettings())
            try session.stopRunning()

            let data = try #require(photo.fileDataRepresentation())
            // EXIF in APP1 straight after SOI, and no JFIF APP0 beside it.
            #expect(Array(data.prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE1])
            #expect(Array(data[6..<12]) == Array("Exif".utf8) + [0, 0])
            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: 640, height: 480))
            #expect(photo.resolvedSettings.fileType == .jpeg)
            #expect(photo.timestamp.isNumeric)

            let scratch = try PhotoScratch()
            let file = try scratch.write(data, as: "photo.jpg")
            let probe = try PhotoTools.probe(file, in: scratch)
            #expect(probe.width == 640 && probe.height == 480)
            #expect(probe.pixelFormat == "yuvj420p", "nv12 stays 4:2:0 and JPEG is full range")
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            let index = try #require(photo.sourceSequenceNumber)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: index)
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR against frame \(index): \(match) dB")
            #expect(psnr(lumaPlane(decoded.bytes, width: 640, height: 480), lumaPlane(expected, width: 640, height: 480)) >= 35)
            // The right frame, not a neighbour: the pattern moves and the frame number is burned in.
            let neighbour = psnr(decoded.bytes, try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: index + 2))
            #expect(match > neighbour + 5, "frame \(index): \(match) dB, frame \(index + 2): \(neighbour) dB")
            // The uncompressed picture is the camera's frame itself.
            let frame = try #require(photo.pixelBuffer)
            let source = try TestPattern(width: 640, height: 480, pixelFormat: .nv12).render(frameIndex: Int(index))
            #expect(frame.hasSamePixels(as: source))
        }

        @Test func jpegFromYUYVStays422() async throws {
            let camera = try makePhotoCamera("jpeg yuyv", pixelFormat: .yuyv422)
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let photo = try await output.capturePhoto(with: CapturePhotoSettings())
            try session.stopRunning()

            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "photo.jpg")
            #expect(try PhotoTools.probe(file, in: scratch).pixelFormat == "yuvj422p")
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .yuyv422, index: try #require(photo.sourceSequenceNumber))
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR \(match) dB")
        }

        @Test func pngIsTheFrameOfItsIndexWithEXIF() async throws {
            let camera = try makePhotoCamera("png")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            #expect(output.availablePhotoFileTypes.contains(.png))
            let photo = try await output.capturePhoto(with: CapturePhotoSettings(fileType: .png))
            try session.stopRunning()

            let data = try #require(photo.fileDataRepresentation())
            #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let scratch = try PhotoScratch()
            let file = try scratch.write(data, as: "photo.png")
            #expect(try PhotoTools.probe(file, in: scratch).pixelFormat == "rgb24")
            // Every chunk's CRC checked by FFmpeg's decoder, the eXIf chunk included.
            try PhotoTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-err_detect", "crccheck", "-xerror",
                                          "-i", file, "-f", "null", "-"], in: scratch)
            let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: try #require(photo.sourceSequenceNumber))
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR \(match) dB")
            let exif = try PhotoTools.exif(file, in: scratch)
            #expect(exif["Make"] as? String == "CaptureKit")
            #expect(exif["Model"] as? String == camera.localizedName)
            #expect(exif["Orientation"] as? Int == 1)
            #expect(exif["ExifImageWidth"] as? Int == 640)
        }

        @Test func heifIsTheFrameOfItsIndexWithEXIF() async throws {
            let camera = try makePhotoCamera("heif")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            try #require(output.availablePhotoFileTypes.contains(.heif), "libheif has no HEVC encoder here")
            let photo = try await output.capturePhoto(with: CapturePhotoSettings(fileType: .heif))
            try session.stopRunning()

            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "photo.heic")
            let decoded = try PhotoTools.decodeHEIF(file, in: scratch)
            #expect(decoded.width == 640 && decoded.height == 480)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: try #require(photo.sourceSequenceNumber))
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR \(match) dB (the nclx profile must say limited range)")
            let exif = try PhotoTools.exif(file, in: scratch)
            #expect(exif["MIMEType"] as? String == "image/heic")
            #expect(exif["Make"] as? String == "CaptureKit")
            #expect(exif["Model"] as? String == camera.localizedName)
            #expect(exif["ExifImageHeight"] as? Int == 480)
        }

        @Test func heifOrientationIsWrittenAsRotationBoxes() async throws {
            let camera = try makePhotoCamera("heif irot")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            try #require(output.availablePhotoFileTypes.contains(.heif), "libheif has no HEVC encoder here")
            try #require(output.connection(with: .video)).videoOrientation = .portrait
            let photo = try await output.capturePhoto(with: CapturePhotoSettings(fileType: .heif))
            try session.stopRunning()

            #expect(photo.metadata.orientation == .right)
            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "photo.heic")
            // heif-convert applies irot/imir: the picture comes out upright, as tall as it is wide.
            let decoded = try PhotoTools.decodeHEIF(file, in: scratch)
            #expect(decoded.width == 480 && decoded.height == 640)
            #expect(try PhotoTools.exif(file, in: scratch)["Orientation"] as? Int == 6)
            // CapturePhoto.image() decodes it upright too (libheif, from memory).
            #expect(try photo.image().size == VideoDimensions(width: 480, height: 640))
        }

        @Test func exifCarriesDateMakeModelAndSize() async throws {
            let camera = try makePhotoCamera("exif fields")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let photo = try await output.capturePhoto(with: CapturePhotoSettings())
            let after = Date()
            try session.stopRunning()

            let scratch = try PhotoScratch()
            let exif = try PhotoTools.exif(try scratch.write(try #require(photo.fileDataRepresentation()), as: "photo.jpg"), in: scratch)
            #expect(exif["Make"] as? String == "CaptureKit")
            #expect(exif["Model"] as? String == camera.localizedName)
            #expect(exif["Software"] as? String == "CaptureKit")
            #expect(exif["Orientation"] as? Int == 1)
            #expect(exif["ExifImageWidth"] as? Int == 640)
            #expect(exif["ExifImageHeight"] as? Int == 480)
            #expect(exif["Flash"] as? Int == 0x20, "the virtual camera has no flash")
            #expect(exif["JFIFVersion"] == nil, "APP1 EXIF replaces the JFIF APP0 segment")

            // DateTimeOriginal + SubSecTimeOriginal + OffsetTimeOriginal is the frame's capture
            // instant: its timestamp on the wall clock (however stale a loaded machine made the
            // frame), before the photo came back. The 50 ms only cover a preemption between
            // reading the two clocks, here or in the library.
            let date = try #require(photo.metadata.dateTimeOriginal)
            let captured = try #require(photo.timestamp.nanoseconds)
            let expected = Date(timeIntervalSince1970: Self.wallClockOffset() + Double(captured) / 1e9)
            #expect(abs(date.timeIntervalSince(expected)) < 0.05, "\(date.timeIntervalSince1970) vs \(expected.timeIntervalSince1970)")
            #expect(date <= after)
            let offset = TimeZone.current.secondsFromGMT(for: date)
            let fields = try #require(photo.metadata.exifDateFields)
            #expect(exif["DateTimeOriginal"] as? String == fields.dateTime)
            #expect("\(exif["SubSecTimeOriginal"] ?? "")" == fields.subSeconds || exif["SubSecTimeOriginal"] as? Int == Int(fields.subSeconds))
            #expect(exif["OffsetTimeOriginal"] as? String == String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) / 60 % 60))
            // exiftool's own composite of the three fields gives back the instant to the millisecond.
            let composite = try #require(exif["SubSecDateTimeOriginal"] as? String)
            let parser = DateFormatter()
            parser.locale = Locale(identifier: "en_US_POSIX")
            parser.dateFormat = "yyyy:MM:dd HH:mm:ss.SSSxxx"
            let parsed = try #require(parser.date(from: composite), "composite \(composite)")
            #expect(abs(parsed.timeIntervalSince(date)) < 0.001, "\(composite) vs \(date.timeIntervalSince1970)")
        }

        @Test func everyOrientationAndMirroringMapsToItsEXIFValue() async throws {
            let camera = try makePhotoCamera("orientations")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let connection = try #require(output.connection(with: .video))
            let scratch = try PhotoScratch()
            // Mirroring is left to right as shown (after the turn), as a selfie preview.
            let cases: [(angle: Double, mirrored: Bool, exif: Int)] = [
                (0, false, 1), (90, false, 6), (180, false, 3), (270, false, 8),
                (0, true, 2), (90, true, 5), (180, true, 4), (270, true, 7),
            ]
            for (angle, mirrored, value) in cases {
                try connection.setVideoRotationAngle(angle)
                connection.isVideoMirrored = mirrored
                let photo = try await output.capturePhoto(with: CapturePhotoSettings())
                #expect(photo.resolvedSettings.orientation.rawValue == value, "\(angle)° mirrored \(mirrored)")
                #expect(photo.metadata.orientation.rawValue == value)
                #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: 640, height: 480), "pixels untouched")
                let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "o\(Int(angle))\(mirrored).jpg")
                #expect(try PhotoTools.exif(file, in: scratch)["Orientation"] as? Int == value, "\(angle)° mirrored \(mirrored)")
                #expect(try PhotoTools.probe(file, in: scratch).width == 640)
                // Decoded as a viewer shows it: the quarter turns stand up.
                let shown = value >= 5 ? VideoDimensions(width: 480, height: 640) : VideoDimensions(width: 640, height: 480)
                #expect(try photo.image().size == shown, "\(angle)° mirrored \(mirrored)")
            }
        }

        @Test func orientationCanBeAppliedToThePixels() async throws {
            let camera = try makePhotoCamera("turned pixels")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let connection = try #require(output.connection(with: .video))
            let scratch = try PhotoScratch()
            for (angle, mirrored) in [(90.0, false), (270.0, false), (180.0, true), (90.0, true), (0.0, true)] {
                try connection.setVideoRotationAngle(angle)
                connection.isVideoMirrored = mirrored
                let expectedOrientation = EXIFOrientation(rotationAngle: angle, isMirrored: mirrored)
                var settings = CapturePhotoSettings()
                settings.appliesOrientationToPixels = true
                let photo = try await output.capturePhoto(with: settings)
                let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "t\(Int(angle))\(mirrored).jpg")
                #expect(try PhotoTools.exif(file, in: scratch)["Orientation"] as? Int == 1)
                #expect(photo.resolvedSettings.orientation == .up)
                let decoded = try PhotoTools.decodeYUV420(file, in: scratch)
                let swaps = expectedOrientation.swapsDimensions
                #expect(decoded.width == (swaps ? 480 : 640) && decoded.height == (swaps ? 640 : 480))
                // The source frame's luma turned by the EXIF definition of the orientation.
                let source = lumaPlane(try expectedFrame(width: 640, height: 480, pixelFormat: .nv12,
                                                         index: try #require(photo.sourceSequenceNumber)), width: 640, height: 480)
                let turned = applyEXIFOrientation(expectedOrientation.rawValue, to: source, width: 640, height: 480)
                let match = psnr(lumaPlane(decoded.bytes, width: decoded.width, height: decoded.height), turned)
                #expect(match >= 35, "\(angle)° mirrored \(mirrored): \(match) dB")
            }
        }

        /// The frame rate of ``takeEight(_:settings:configure:)``'s camera: slow, so that a
        /// loaded machine rarely makes the newest frame older than zero shutter lag takes.
        static let slowRate: Int32 = 10

        /// Eight photos one after the other from a 10 fps camera, each with the time it was
        /// requested and returned, and every frame a data output saw.
        private func takeEight(_ label: String, settings: (inout CapturePhotoSettings) -> Void = { _ in },
                               configure: (CapturePhotoOutput) -> Void = { _ in })
            async throws -> (taken: [(requested: Int64, returned: Int64, photo: CapturePhoto)], seen: [ReceivedSample]) {
            let camera = try makePhotoCamera(label, frameRate: Self.slowRate)
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let frames = CaptureVideoDataOutput()
            let watcher = SampleRecorder(label: "tests.photo.watcher")
            watcher.attach(to: frames)
            let (session, output) = try await Self.running(camera, extraOutputs: [frames])
            defer { try? session.stopRunning() }
            configure(output)
            #expect(await watcher.samples.wait(forCount: 2, timeout: .seconds(30)))
            var taken: [(requested: Int64, returned: Int64, photo: CapturePhoto)] = []
            for _ in 0..<8 {
                var request = CapturePhotoSettings()
                settings(&request)
                let requested = MonotonicClock.nanoseconds()
                let photo = try await output.capturePhoto(with: request)
                taken.append((requested, MonotonicClock.nanoseconds(), photo))
            }
            try session.stopRunning()
            return (taken, watcher.samples.items)
        }

        /// What every photo's frame is, however it was chosen: never older than a frame
        /// delivered before the request (the camera hands a frame to every output before it
        /// makes the next: a frame the watcher had before the request reached the photo output
        /// before the request, or is that frame on its way), stamped with its exact capture
        /// time, captured before the photo came back.
        private func checkFrames(_ taken: [(requested: Int64, returned: Int64, photo: CapturePhoto)], seen: [ReceivedSample]) throws {
            let reference = try #require(seen.first)
            let duration = frameDuration(fps: Self.slowRate)
            for (requested, returned, photo) in taken {
                let index = try #require(photo.sourceSequenceNumber)
                if let before = seen.last(where: { $0.arrival < requested }) {
                    #expect(index >= before.sequenceNumber, "photo of frame \(index), though frame \(before.sequenceNumber) had been delivered before the request")
                }
                #expect(photo.timestamp == reference.sample.presentationTimeStamp + duration * (Int64(index) - Int64(reference.sequenceNumber)),
                        "photo of frame \(index) stamped \(photo.timestamp)")
                let captured = try #require((photo.timestamp + duration).nanoseconds)
                #expect(captured <= returned + 500_000, "photo of frame \(index) came back before the frame was captured")
            }
        }

        /// Zero shutter lag (the default): a photo takes the newest frame already delivered
        /// when it is fresh (delivered at most 1.5 frame intervals ago), so photos come from
        /// frames delivered before their requests; a stale one (a loaded machine's) gives way to
        /// the next frame, never to an older one.
        @Test func aPhotoTakesTheNewestFrameAlreadyDelivered() async throws {
            let (taken, seen) = try await takeEight("newest frame")
            try checkFrames(taken, seen: seen)
            let indices = taken.compactMap(\.photo.sourceSequenceNumber)
            #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 <= $1 }, "\(indices)")
            // From the past: photos taken back to back mostly come from a frame the watcher had
            // been given before the request — delivered already. Waiting for the next frame, a
            // photo could only when that frame was still on its way from the watcher to the
            // photo output at the request: a matter of microseconds in 100 ms.
            let delivered = taken.filter { photo in
                seen.contains { $0.sequenceNumber == photo.photo.sourceSequenceNumber && $0.arrival < photo.requested }
            }
            #expect(delivered.count >= 4, "only \(delivered.count) of 8 photos came from a frame delivered before their request: \(indices)")
        }

        /// ``CapturePhotoSettings/waitsForNextFrame``, or zero shutter lag turned off: each photo
        /// waits for a frame after its request — one after the other, each from a newer frame.
        @Test(arguments: [true, false])
        func withoutZeroShutterLagAPhotoWaitsForTheNextFrame(askedInTheSettings: Bool) async throws {
            let (taken, seen) = try await takeEight("next frame", settings: { $0.waitsForNextFrame = askedInTheSettings }) { output in
                #expect(output.isZeroShutterLagSupported && output.isZeroShutterLagEnabled)
                if !askedInTheSettings { output.isZeroShutterLagEnabled = false }
            }
            try checkFrames(taken, seen: seen)
            let indices = taken.compactMap(\.photo.sourceSequenceNumber)
            #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }, "\(indices)")
        }

        @Test func requestOnAStoppedSessionFailsThroughTheWholeSequence() async throws {
            let camera = try makePhotoCamera("stopped")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            let recorder = PhotoDelegateRecorder()
            let neverStarted = CapturePhotoSettings()
            output.capturePhoto(with: neverStarted, delegate: recorder, queue: recorder.queue)
            #expect(await recorder.waitForFinished(1))
            #expect(isCompleteSequence(recorder.calls(for: neverStarted.uniqueID), error: .invalidState), "\(recorder.calls.items)")
            let failed = try #require(recorder.photos.items.first)
            #expect(failed.fileDataRepresentation() == nil)
            #expect(failed.pixelBuffer == nil)

            try await session.start()
            _ = try await output.capturePhoto(with: CapturePhotoSettings())
            try await session.stop()
            let error = await #expect(throws: CaptureError.self) { _ = try await output.capturePhoto(with: CapturePhotoSettings()) }
            #expect(error?.code == .invalidState)
            // Nothing arrives twice.
            #expect(recorder.calls.count == 5)
        }

        @Test func unsupportedRequestsFailWithTypedErrors() async throws {
            let camera = try makePhotoCamera("unsupported")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            #expect(output.supportedFlashModes == [.off])
            output.maxPhotoDimensions = PhotoDimensions(width: 640, height: 480)
            let recorder = PhotoDelegateRecorder()

            var flash = CapturePhotoSettings()
            flash.flashMode = .on
            var quality = CapturePhotoSettings()
            quality.quality = 1.5
            var tooLarge = CapturePhotoSettings()
            tooLarge.maxPhotoDimensions = PhotoDimensions(width: 1280, height: 720)
            let good = CapturePhotoSettings()
            let requests = [flash, quality, tooLarge, good, good]   // the last reuses settings
            for settings in requests { output.capturePhoto(with: settings, delegate: recorder, queue: recorder.queue) }
            #expect(await recorder.waitForFinished(requests.count))

            let finishes = recorder.calls.items.filter { $0.kind == .didFinishCapture }
            #expect(finishes.map(\.error) == [.invalidArgument, .invalidArgument, .invalidArgument, nil, .invalidArgument],
                    "\(finishes)")
            for settings in [flash, quality, tooLarge] {
                #expect(isCompleteSequence(recorder.calls(for: settings.uniqueID), error: .invalidArgument))
            }
            // A copy with a new identifier is fine again.
            _ = try await output.capturePhoto(with: CapturePhotoSettings(from: good))
        }

        @Test func delegateOrderHoldsUnderTwentyConcurrentRequests() async throws {
            let camera = try makePhotoCamera("twenty")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            let recorder = PhotoDelegateRecorder()
            let settings = (0..<20).map { _ in CapturePhotoSettings() }
            await withTaskGroup(of: Void.self) { group in
                for request in settings {
                    group.addTask { output.capturePhoto(with: request, delegate: recorder, queue: recorder.queue) }
                }
            }
            #expect(await recorder.waitForFinished(20, timeout: .seconds(60)))
            try session.stopRunning()

            let calls = recorder.calls.items
            for request in settings {
                #expect(isCompleteSequence(calls.filter { $0.id == request.uniqueID }, error: nil), "\(calls.filter { $0.id == request.uniqueID })")
            }
            // Served in the order they were made: the order of willBegin.
            let begun = calls.filter { $0.kind == .willBegin }.map(\.id)
            #expect(calls.filter { $0.kind == .didFinishCapture }.map(\.id) == begun)
            #expect(calls.filter { $0.kind == .didFinishProcessing }.map(\.id) == begun)
            // And from frames in that order too.
            let photos = recorder.photos.items
            let frames = photos.compactMap(\.sourceSequenceNumber)
            #expect(frames.count == 20)
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 <= $1 }, "\(frames)")
            #expect(photos.allSatisfy { $0.fileDataRepresentation() != nil })
            #expect(output.inFlightCaptureCount == 0)
            // Served two at a time where there are two cores: the burst encodes on both.
            #expect(output.engine.maximumEncoders == min(2, ProcessInfo.processInfo.activeProcessorCount))
            #expect(output.engine.peakConcurrentRequests == output.engine.maximumEncoders)
        }

        /// A burst, each photo of the next frame, with a larger one second: served by two workers
        /// around a format switch, every photo has its own size and every report keeps the order.
        /// (That the switch waits for the request before it, whose frame would otherwise be
        /// taken from the larger stream, the virtual camera cannot show: it delivers the frame
        /// due before it stops.)
        @Test func aFormatSwitchInABurstIsServedAloneAndInOrder() async throws {
            let camera = try makePhotoCamera("burst switch", sizes: [(640, 480), (1280, 720)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            let recorder = PhotoDelegateRecorder()
            let settings = (0..<7).map { index in
                var settings = CapturePhotoSettings()
                settings.waitsForNextFrame = true
                if index == 1 { settings.maxPhotoDimensions = PhotoDimensions(width: 1280, height: 720) }
                return settings
            }
            for request in settings { output.capturePhoto(with: request, delegate: recorder, queue: recorder.queue) }
            #expect(await recorder.waitForFinished(7, timeout: .seconds(60)))
            try session.stopRunning()

            let calls = recorder.calls.items
            let begun = calls.filter { $0.kind == .willBegin }.map(\.id)
            #expect(begun == settings.map(\.uniqueID))
            #expect(calls.filter { $0.kind == .didFinishProcessing }.map(\.id) == begun)
            #expect(calls.filter { $0.kind == .didFinishCapture }.map(\.id) == begun)
            let photos = recorder.photos.items
            #expect(photos.count == 7)
            for (index, photo) in photos.enumerated() {
                let wanted = index == 1 ? (1280, 720) : (640, 480)
                #expect(photo.pixelBuffer?.width == wanted.0 && photo.pixelBuffer?.height == wanted.1, "photo \(index)")
                #expect(photo.resolvedSettings.switchesDeviceFormat == (index == 1))
                #expect(photo.fileDataRepresentation() != nil)
            }
            #expect(camera.activeFormat.width == 640, "back at the streaming format")
        }

        @Test func maxPhotoDimensionsScalesTheFrameDown() async throws {
            let camera = try makePhotoCamera("scaled")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            defer { try? session.stopRunning() }
            var settings = CapturePhotoSettings()
            settings.maxPhotoDimensions = PhotoDimensions(width: 400, height: 400)
            let photo = try await output.capturePhoto(with: settings)
            try session.stopRunning()

            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: 400, height: 300))
            #expect(!photo.resolvedSettings.switchesDeviceFormat)
            #expect(photo.pixelBuffer?.width == 400)
            let scratch = try PhotoScratch()
            let decoded = try PhotoTools.decodeYUV420(try scratch.write(try #require(photo.fileDataRepresentation()), as: "s.jpg"), in: scratch)
            #expect(decoded.width == 400 && decoded.height == 300)
            let expected = try expectedFrame(width: 640, height: 480, pixelFormat: .nv12, index: try #require(photo.sourceSequenceNumber),
                                             scaledTo: (400, 300))
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 30, "PSNR against the frame scaled by libswscale: \(match) dB")
        }

        @Test func largerPhotoSwitchesTheFormatForTheShotAndBack() async throws {
            let camera = try makePhotoCamera("switch", sizes: [(640, 480), (1280, 720)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let frames = CaptureVideoDataOutput()
            let watcher = SampleRecorder()
            watcher.attach(to: frames)
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [output, frames])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(output.supportedMaxPhotoDimensions == [PhotoDimensions(width: 640, height: 480), PhotoDimensions(width: 1280, height: 720)])
            #expect(await watcher.samples.wait(forCount: 3, timeout: .seconds(30)))

            var settings = CapturePhotoSettings()
            settings.maxPhotoDimensions = PhotoDimensions(width: 1920, height: 1080)
            let photo = try await output.capturePhoto(with: settings)
            #expect(photo.resolvedSettings.switchesDeviceFormat)
            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: 1280, height: 720))
            // Back at the streaming format, still running, frames still flowing at that size.
            #expect(camera.activeFormat.width == 640 && camera.activeFormat.height == 480)
            #expect(session.state == .running)
            #expect(session.sessionPreset == .vga640x480)
            let seen = watcher.samples.count
            #expect(await watcher.samples.wait(timeout: .seconds(30)) { $0.count >= seen + 3 && $0.last?.width == 640 })
            try session.stopRunning()

            let scratch = try PhotoScratch()
            let decoded = try PhotoTools.decodeYUV420(try scratch.write(try #require(photo.fileDataRepresentation()), as: "big.jpg"), in: scratch)
            #expect(decoded.width == 1280 && decoded.height == 720)
            let expected = try expectedFrame(width: 1280, height: 720, pixelFormat: .nv12, index: try #require(photo.sourceSequenceNumber))
            let match = psnr(decoded.bytes, expected)
            #expect(match >= 35, "PSNR \(match) dB")
        }

        @Test func formatSwitchIsSkippedWhileAnOutputCannotTakeIt() async throws {
            let camera = try makePhotoCamera("no switch", sizes: [(640, 480), (1280, 720)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .vga640x480, outputs: [output, FixedSizeOutput()])
            try await session.start()
            defer { try? session.stopRunning() }
            var settings = CapturePhotoSettings()
            settings.maxPhotoDimensions = PhotoDimensions(width: 1280, height: 720)
            let photo = try await output.capturePhoto(with: settings)
            #expect(!photo.resolvedSettings.switchesDeviceFormat)
            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: 640, height: 480))
            #expect(camera.activeFormat.width == 640)
        }

        @Test func photosWhileADataOutputRuns() async throws {
            let camera = try makePhotoCamera("with data output")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let frames = CaptureVideoDataOutput()
            let watcher = SampleRecorder()
            watcher.attach(to: frames)
            let (session, output) = try await Self.running(camera, extraOutputs: [frames])
            defer { try? session.stopRunning() }
            #expect(await watcher.samples.wait(forCount: 2, timeout: .seconds(30)))
            var photographed: [UInt64] = []
            for _ in 0..<3 {
                let photo = try await output.capturePhoto(with: CapturePhotoSettings())
                #expect(photo.fileDataRepresentation() != nil)
                photographed.append(try #require(photo.sourceSequenceNumber))
            }
            let seen = watcher.samples.count
            #expect(await watcher.samples.wait(forCount: seen + 5, timeout: .seconds(30)))
            try session.stopRunning()
            // The data output lost no frame to the photos: every frame, the photographed ones
            // too, was delivered to it or reported dropped (a loaded machine drops late frames,
            // and says so), with exact timestamps.
            let accounting = watcher.accounting
            #expect(accounting.isComplete, "\(accounting)")
            let delivered = watcher.samples.items
            let times = FrameTimestamps(delivered, frameDuration: frameDuration(fps: 30))
            #expect(times.isExact, "\(times)")
            let first = try #require(delivered.first?.sequenceNumber), last = try #require(delivered.last?.sequenceNumber)
            #expect(photographed.allSatisfy { (first...last).contains($0) }, "photos of frames \(photographed) while the data output saw \(first)...\(last)")
            #expect(frames.statistics.dropped >= accounting.dropped)
        }

        @Test func stoppingWhileAPhotoIsPendingStillCompletesItOnce() async throws {
            let camera = try makePhotoCamera("stop pending")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let (session, output) = try await Self.running(camera)
            let recorder = PhotoDelegateRecorder()
            let settings = CapturePhotoSettings()
            output.capturePhoto(with: settings, delegate: recorder, queue: recorder.queue)
            try session.stopRunning()
            #expect(await recorder.waitForFinished(1))
            let calls = recorder.calls(for: settings.uniqueID)
            #expect(isCompleteSequence(calls, error: nil) || isCompleteSequence(calls, error: .invalidState), "\(calls)")
        }

        @Test func pendingPhotosFailAtOnceWhenTheSessionChangesUnderThem() async throws {
            // One frame a second: nothing is delivered for a second after the start, so requests
            // made meanwhile are still waiting when the session tells the output what happened.
            let camera = try makeTestCamera("pending") { configuration in
                configuration.sizes = [.init(width: 640, height: 480)]
                configuration.frameRates = [1]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            let recorder = PhotoDelegateRecorder()
            try await session.start()
            defer { try? session.stopRunning() }

            let interrupted = CapturePhotoSettings()
            output.capturePhoto(with: interrupted, delegate: recorder, queue: recorder.queue)
            output.sessionWasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID))
            let stopped = CapturePhotoSettings()
            output.capturePhoto(with: stopped, delegate: recorder, queue: recorder.queue)
            output.sessionDidStopRunning()
            let removed = CapturePhotoSettings()
            output.capturePhoto(with: removed, delegate: recorder, queue: recorder.queue)
            session.removeOutput(output)
            #expect(await recorder.waitForFinished(3))
            // Failed at once, by what happened, not by a frame (which would have served them) or
            // by the frame timeout (whose error says so): each error names its cause.
            #expect(isCompleteSequence(recorder.calls(for: interrupted.uniqueID), error: .deviceDisconnected), "\(recorder.calls.items)")
            #expect(isCompleteSequence(recorder.calls(for: stopped.uniqueID), error: .invalidState), "\(recorder.calls.items)")
            #expect(isCompleteSequence(recorder.calls(for: removed.uniqueID), error: .invalidState), "\(recorder.calls.items)")
            let messages = [interrupted, stopped, removed].map { recorder.calls(for: $0.uniqueID).last?.message ?? "" }
            #expect(messages[0].contains("went away"), "\(messages[0])")
            #expect(messages[1].contains("session stopped"), "\(messages[1])")
            #expect(messages[2].contains("removed"), "\(messages[2])")
            #expect(output.inFlightCaptureCount == 0)
        }

        @Test func requestWhileInterruptedIsRefused() async throws {
            let camera = try makePhotoCamera("interrupted")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CapturePhotoOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            try camera.simulateDisconnect()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: camera.uniqueID)), timeout: .seconds(30)))
            let refused = await #expect(throws: CaptureError.self) { _ = try await output.capturePhoto(with: CapturePhotoSettings()) }
            #expect(refused?.code == .deviceDisconnected)
            try camera.simulateReconnect()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)))
            let photo = try await output.capturePhoto(with: CapturePhotoSettings())
            #expect(photo.fileDataRepresentation() != nil)
        }
    }
}

/// An output of a kind the photo output does not know (as a movie file output is): a device
/// format switch could break it, so the photo output must not switch while it is connected.
final class FixedSizeOutput: CaptureOutput, @unchecked Sendable {
    override var acceptedMediaTypes: Set<MediaType> { [.video] }
}

/// `source` (a width×height 8-bit plane) as shown under EXIF orientation `value`, straight from
/// the EXIF 2.32 definitions of where the 0th row and column go.
func applyEXIFOrientation(_ value: Int, to source: [UInt8], width: Int, height: Int) -> [UInt8] {
    let swaps = value >= 5
    let (w, h) = swaps ? (height, width) : (width, height)
    var out = [UInt8](repeating: 0, count: w * h)
    for y in 0..<h {
        for x in 0..<w {
            let (sx, sy): (Int, Int)
            switch value {
            case 2: (sx, sy) = (width - 1 - x, y)
            case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
            case 4: (sx, sy) = (x, height - 1 - y)
            case 5: (sx, sy) = (y, x)
            case 6: (sx, sy) = (y, height - 1 - x)
            case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
            case 8: (sx, sy) = (width - 1 - y, x)
            default: (sx, sy) = (x, y)
            }
            out[y * w + x] = source[sy * width + sx]
        }
    }
    return out
}
