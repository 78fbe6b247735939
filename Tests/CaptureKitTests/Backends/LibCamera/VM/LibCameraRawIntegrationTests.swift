import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// libcamera's raw stream role, against vimc_raw (vimc as two raw sensors behind a CSI-2
    /// receiver: scripts/vm/vimc-raw.patch) driven by libcamera's `simple` pipeline handler in
    /// the test VM, with `cam` as the witness: the raw formats against `cam -I`'s raw role, and
    /// raw photos' DNG samples against the frames `cam` captures in the raw role. The harness
    /// runs it in a process of its own (scripts/vm/guest-tests.sh); disabled elsewhere.
    @Suite(.serialized, .tags(.vm, .childProcess),
           .enabled(if: VMEnvironment.isEnabled && ProcessInfo.processInfo.environment["CAPTUREKIT_VM_LIBCAMERA_RAW"] == "1",
                    "runs inside the test VM with vimc_raw and udevd (scripts/vm/guest-tests.sh)"))
    struct LibCameraRawIntegrationTests {
        /// libcamera's id of vimc_raw's first sensor.
        static let cameraID = "platform/sun6i-csi.0 Sensor A"
        static let width = 640, height = 480
        /// libcamera's names of the Bayer formats (`cam -I`), as CaptureKit's layouts.
        static let bayerNames: [String: PixelFormat] = [
            "SBGGR8": .bayerBGGR8, "SGBRG8": .bayerGBRG8, "SGRBG8": .bayerGRBG8, "SRGGB8": .bayerRGGB8,
            "SBGGR10": .bayerBGGR10, "SGBRG10": .bayerGBRG10, "SGRBG10": .bayerGRBG10, "SRGGB10": .bayerRGGB10,
            "SBGGR12": .bayerBGGR12, "SGBRG12": .bayerGBRG12, "SGRBG12": .bayerGRBG12, "SRGGB12": .bayerRGGB12,
            "SBGGR16": .bayerBGGR16, "SGBRG16": .bayerGBRG16, "SGRBG16": .bayerGRBG16, "SRGGB16": .bayerRGGB16,
        ]

        static func camera() throws -> CaptureDevice {
            try #require(CaptureDevice.allDevices.first { $0.uniqueID == "libcamera:\(cameraID)" },
                         "no device libcamera:\(cameraID) among \(CaptureDevice.allDevices.map(\.uniqueID))")
        }

        static func format(_ device: CaptureDevice, _ pixelFormat: PixelFormat) throws -> CaptureDevice.Format {
            try #require(device.formats.first { $0.pixelFormat == pixelFormat && $0.width == width && $0.height == height },
                         "no \(pixelFormat) \(width)x\(height) in \(device.formats)")
        }

        @Test func theRawSensorsAreCamerasWithTheRawRolesBayerFormats() throws {
            let device = try Self.camera()
            #expect(device.localizedName == "Sensor A" && device.position == .back, "\(device.localizedName) \(device.position)")
            // Both sensors, once each: their capture nodes are not V4L2 devices too.
            let sensors = CaptureDevice.allDevices.map(\.uniqueID).filter { $0.hasPrefix("libcamera:platform/sun6i-csi") }
            #expect(sensors.sorted() == ["libcamera:platform/sun6i-csi.0 Sensor A", "libcamera:platform/sun6i-csi.0 Sensor B"], "\(sensors)")
            let nodes = CaptureDevice.allDevices.compactMap { ($0.backend as? V4L2DeviceBackend)?.node }.filter { $0.capability.driver == "sun6i-csi" }
            #expect(nodes.isEmpty, "\(nodes.map(\.path))")
            let text = String(decoding: try FileFixtures.run("cam", ["-c", Self.cameraID, "-I", "-s", "role=raw"], includingErrors: true), as: UTF8.self)
            // " * Pixelformat: SBGGR8 (640x480)-(640x480)/(+1,+1)" then "  - 640x480" lines.
            var expected = Set<String>()
            var current: PixelFormat?
            for line in text.split(separator: "\n") {
                if let range = line.range(of: "Pixelformat: ") {
                    current = Self.bayerNames[String(line[range.upperBound...].prefix { $0 != " " })]
                } else if let current, line.hasPrefix("  - ") {
                    expected.insert("\(current) \(line.dropFirst(4))")
                }
            }
            #expect(expected.count >= 12, "cam -I: \(text)")
            let offered = Set(device.formats.filter { $0.pixelFormat?.isBayer == true }.map { "\($0.pixelFormat!) \($0.width)x\($0.height)" })
            #expect(offered == expected, "missing: \(expected.subtracting(offered).sorted()); extra: \(offered.subtracting(expected).sorted())")
            // The default format is a processed one; Bayer formats stream in the raw role.
            let backend = try #require(device.backend as? LibCameraBackend)
            #expect(device.activeFormat.pixelFormat?.isBayer == false, "\(device.activeFormat)")
            let raw = try Self.format(device, .bayerGRBG10)
            #expect(backend.role(for: StreamConfiguration(format: raw, frameDuration: raw.minFrameDuration)) == 0)  // CK_LC_ROLE_RAW
        }

        /// A raw photo in each depth: its samples are the ones `cam` captures in the raw role,
        /// and dcraw demosaics them into vimc's colour bars (so the CFA pattern is right too).
        @Test(arguments: ["SBGGR8", "SGRBG10", "SRGGB12"])
        func aRawPhotoKeepsTheSensorsSamples(_ name: String) async throws {
            try #require(PhotoTools.isInstalled("dcraw"), "dcraw (scripts/install-deps.sh)")
            let bayer = try #require(Self.bayerNames[name])
            let scratch = try PhotoScratch()
            try FileFixtures.run("cam", ["-c", Self.cameraID, "--capture=3", "--file=\(scratch.path)/frame-#.bin",
                                         "-s", "role=raw,width=\(Self.width),height=\(Self.height),pixelformat=\(name)"], includingErrors: true)
            let files = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("frame-") }.sorted()
            let reference = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(scratch.path)/\(try #require(files.last, "cam wrote no frame"))")))
            let bytesPerSample = bayer.bayerBitDepth == 8 ? 1 : 2
            try #require(reference.count == Self.width * Self.height * bytesPerSample, "cam wrote \(reference.count) bytes")

            let device = try Self.camera()
            let photo = try await VMCapture.rawPhoto(device, try Self.format(device, bayer))
            let dng = try scratch.write(try #require(photo.fileDataRepresentation()), as: "sensor.dng")
            try V4L2IntegrationTests.RawPhotoVividTests.check(dng, fourCC: name, format: bayer, reference: reference, in: scratch)
            let tags = try PhotoTools.exif(dng, in: scratch)
            #expect(tags["Model"] as? String == "Sensor A" && tags["DNGVersion"] as? String == "1 4 0 0", "\(tags)")
            let whiteLevel = (1 << (bayer.bayerBitDepth ?? 8)) - 1
            #expect(tags["WhiteLevel"] as? Int == whiteLevel, "\(String(describing: tags["WhiteLevel"]))")
        }

        /// Frames of the raw role, lent by reference, numbered by libcamera's sequence.
        @Test func rawFramesStreamWithIncreasingSensorTimestamps() async throws {
            let device = try Self.camera()
            try VMCapture.configure(device, try Self.format(device, .bayerBGGR8))
            let start = MonotonicClock.nanoseconds()
            let (recorder, _) = try await VMCapture.frames(device, count: 20, timeout: .seconds(120))
            #expect(recorder.samples.count >= 20)
            try VMCapture.expectKernelTimes(recorder, since: start)
            let formats = Set(recorder.samples.items.compactMap { $0.sample.pixelBuffer?.pixelFormat })
            #expect(formats == [.bayerBGGR8])
            #expect(recorder.samples.items.contains { $0.sample.pixelBuffer?.hasDMABuffer == true }, "no frame came by reference")
        }

        /// A movie recorded while the camera streams raw samples (demosaiced on the way into
        /// the encoder): H.264 at the sensor's size, every frame in the file or reported dropped,
        /// and its colours vimc's bars.
        @Test func aRecordingFromTheRawRolePlays() async throws {
            let device = try Self.camera()
            try VMCapture.configure(device, try Self.format(device, .bayerGRBG10))
            let url = MovieFiles.path("libcamera-raw", "mp4")
            let recording = try await WitnessedRecording.record(device, to: url, seconds: 1, settings: MovieOutputSettings())
            #expect(recording.calls == [.didStart, .willFinish, .didFinish(.maximumDurationReached, usable: true)])
            #expect(try ProbedMovie.probe(url.path).video?.codec == "h264")
            let size = try FileFixtures.ffprobe(url, stream: "v:0", entries: "width,height")
            #expect(size["width"] == "\(Self.width)" && size["height"] == "\(Self.height)", "\(size)")
            #expect(recording.account.isComplete, "\(recording.account)")
            let scratch = try PhotoScratch()
            let frame = "\(scratch.path)/frame.ppm"
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-frames:v", "1", "-y", frame])
            let picture = try NetpbmImage(Data(contentsOf: URL(fileURLWithPath: frame)))
            let off = ColorBarPattern.samplePoints(width: Self.width, height: Self.height).filter { point in
                let rgb = picture.pixel(x: point.x, y: point.y)
                return ColorBarPattern.distance((rgb[0], rgb[1], rgb[2]), toBar: point.bar) > 40
            }
            #expect(off.isEmpty, "\(off.count) pixels of the movie's first frame are not vimc's bars: \(off.prefix(4))")
        }

        /// `capture photo OUT.dng` on a libcamera camera streams its largest Bayer format.
        @Test func theCommandLineWritesADNGFromTheRawRole() throws {
            try #require(PhotoTools.isInstalled("dcraw"), "dcraw (scripts/install-deps.sh)")
            let scratch = try PhotoScratch()
            let dng = "\(scratch.path)/cli.dng"
            let result = try CaptureTool.run(["photo", dng, "--device", "libcamera:\(Self.cameraID)"], timeout: .seconds(120))
            #expect(result.status == 0, "\(result)")
            let tags = try PhotoTools.exif(dng, in: scratch)
            #expect(tags["ImageWidth"] as? Int == Self.width && tags["PhotometricInterpretation"] as? Int == 32803, "\(tags)")
            #expect(tags["BitsPerSample"] as? Int == 16, "the deepest samples the sensor has: \(String(describing: tags["BitsPerSample"]))")
        }
    }
}
