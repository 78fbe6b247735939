import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The libcamera backend against the kernel's vimc camera (built out of tree by
    /// scripts/vm/setup.sh) inside the test VM, with udevd running (libcamera finds cameras
    /// through udev) and libcamera's own `cam` as the witness: discovery and formats against
    /// `cam -l`/`cam -I`, pixels against a frame `cam` writes. The harness runs it in a process
    /// of its own (scripts/vm/guest-tests.sh); disabled elsewhere.
    @Suite(.serialized, .tags(.vm, .childProcess),
           .enabled(if: VMEnvironment.isEnabled && ProcessInfo.processInfo.environment["CAPTUREKIT_VM_LIBCAMERA"] == "1",
                    "runs inside the test VM with vimc and udevd (scripts/vm/guest-tests.sh)"))
    struct LibCameraIntegrationTests {
        /// The cameras `cam -l` lists, by id ("1: 'Sensor B' (platform/vimc.0 Sensor B)").
        static func camCameras() throws -> [String] {
            let text = String(decoding: try FileFixtures.run("cam", ["-l"], includingErrors: true), as: UTF8.self)
            return text.split(separator: "\n").compactMap { line -> String? in
                guard line.first?.isNumber == true, line.contains(": '"), let open = line.lastIndex(of: "("), line.hasSuffix(")") else { return nil }
                return String(line[line.index(after: open)..<line.index(before: line.endIndex)])
            }
        }

        /// The libcamera device for the first camera `cam` lists.
        static func camera() throws -> CaptureDevice {
            let id = try #require(try camCameras().first, "cam -l lists no camera")
            return try #require(CaptureDevice.allDevices.first { $0.uniqueID == "libcamera:\(id)" },
                                "no device libcamera:\(id) among \(CaptureDevice.allDevices.map(\.uniqueID))")
        }

        /// The small format the tests stream: vimc's frames are R, G, B (libcamera's BGR888) at
        /// every size, and 320x240 is 318x240 under libcamera 0.0.x (its vimc handler trims
        /// sizes to multiples of 6) and itself under later releases.
        static func small(_ device: CaptureDevice) throws -> CaptureDevice.Format {
            try #require(device.formats.first { [318, 320].contains($0.width) && $0.height == 240 && $0.pixelFormat == .rgb24 },
                         "no rgb24 318x240 or 320x240 in \(device.formats)")
        }

        @Test func listsTheCamerasCamListsOnceEach() throws {
            let ids = try Self.camCameras()
            #expect(!ids.isEmpty)
            let listed = CaptureDevice.allDevices.filter { $0.uniqueID.hasPrefix("libcamera:") }.map(\.uniqueID)
            #expect(listed.sorted() == ids.map { "libcamera:\($0)" }.sorted())
            // One camera, one device: vimc's media-controller nodes are not V4L2 devices too.
            let vimcNodes = CaptureDevice.allDevices.compactMap { ($0.backend as? V4L2DeviceBackend)?.node }.filter { $0.capability.driver == "vimc" }
            #expect(vimcNodes.isEmpty, "\(vimcNodes.map(\.path))")
            let device = try Self.camera()
            #expect(device.manufacturer == "libcamera" && device.hasMediaType(.video) && device.isConnected)
        }

        @Test func formatsAreTheOnesCamInfoShows() throws {
            let device = try Self.camera()
            let text = String(decoding: try FileFixtures.run("cam", ["-c", "1", "-I", "-s", "role=video"], includingErrors: true), as: UTF8.self)
            // " * Pixelformat: BGR888 (48x48)-(4096x2160)/(+1,+1)" then "  - 320x240" lines.
            let names: [String: PixelFormat] = ["BGR888": .rgb24, "RGB888": .bgr24, "YUYV": .yuyv422, "NV12": .nv12, "UYVY": .uyvy422,
                                                "NV21": .nv21, "YUV420": .yuv420p, "XRGB8888": .bgra, "XBGR8888": .rgba]
            // vimc's pipeline handler lists sizes its validation then trims (its scaler triples
            // the sensor's size: both to a multiple of 6); the device lists
            // what validation gives, so exactly cam's sizes trimmed.
            var expected = Set<String>()
            var current: PixelFormat?
            for line in text.split(separator: "\n") {
                if let range = line.range(of: "Pixelformat: ") {
                    current = names[String(line[range.upperBound...].prefix { $0 != " " })]
                } else if let current, line.hasPrefix("  - "), case let size = line.dropFirst(4).split(separator: "x").compactMap({ Int($0) }), size.count == 2 {
                    expected.insert("\(current) \(size[0] - size[0] % 6)x\(size[1] - size[1] % 6)")
                }
            }
            #expect(!expected.isEmpty, "cam -I: \(text)")
            let offered = Set(device.formats.map { "\($0.pixelFormat.map(\.rawValue) ?? "?") \($0.width)x\($0.height)" })
            #expect(offered == expected, "missing: \(expected.subtracting(offered).sorted()); extra: \(offered.subtracting(expected).sorted())")
        }

        @Test func fiftyFramesWithIncreasingSensorTimestampsLentByReference() async throws {
            let device = try Self.camera()
            let format = try Self.small(device)
            try VMCapture.configure(device, format)
            let start = MonotonicClock.nanoseconds()
            let (recorder, _) = try await VMCapture.frames(device, count: 50, timeout: .seconds(120))
            #expect(recorder.samples.count >= 50)
            try VMCapture.expectKernelTimes(recorder, since: start)
            let sequence = recorder.samples.items.map(\.sequenceNumber)
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 })
            #expect(recorder.samples.items.contains { $0.sample.pixelBuffer?.hasDMABuffer == true }, "no frame came by reference")
            let sizes = Set(recorder.samples.items.map { "\($0.sample.pixelBuffer?.width ?? 0)x\($0.sample.pixelBuffer?.height ?? 0) \($0.sample.pixelBuffer?.pixelFormat.rawValue ?? "")" })
            #expect(sizes == ["\(format.width)x240 rgb24"], "\(sizes); active \(device.activeFormat), substitution \(String(describing: device.lastFormatSubstitution))")
        }

        @Test func pixelsAreTheOnesCamCaptures() async throws {
            let device = try Self.camera()
            let format = try Self.small(device)
            let width = format.width
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("libcamera-cam-\(getpid())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            // One file per frame ("#" is the frame number); the last is compared.
            try FileFixtures.run("cam", ["-c", "1", "--capture=3", "--file=\(folder.path)/frame-#.bin", "-s", "role=video,width=\(width),height=240,pixelformat=BGR888"],
                                 includingErrors: true)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("frame-") }.sorted()
            let file = folder.appendingPathComponent(try #require(files.last, "cam wrote no frame"))
            let reference = [UInt8](try Data(contentsOf: file))
            try #require(reference.count >= width * 240 * 3, "cam wrote \(reference.count) bytes, not a \(width)x240 frame")

            try VMCapture.configure(device, format)
            let (recorder, _) = try await VMCapture.frames(device, count: 3, timeout: .seconds(60))
            let frame = try #require(recorder.samples.items.last?.sample.pixelBuffer)
            var ours: [UInt8] = []
            for row in 0..<240 {
                frame.withUnsafeBytes(ofPlane: 0) { bytes in
                    ours += bytes[(row * frame.bytesPerRow(ofPlane: 0))..<(row * frame.bytesPerRow(ofPlane: 0) + width * 3)]
                }
            }
            // cam's file holds the stride's padding too: compare row by row at its stride.
            let stride = reference.count / 240
            let theirs = (0..<240).flatMap { row in reference[(row * stride)..<(row * stride + width * 3)] }
            let differing = zip(ours, theirs).count { abs(Int($0) - Int($1)) > 2 }
            #expect(differing * 100 <= ours.count, "\(differing) of \(ours.count) samples differ from cam's frame")
        }

        @Test func aControlSetIsAppliedAndReadBack() async throws {
            let device = try Self.camera()
            #expect(!device.controls.isEmpty, "libcamera lists controls")
            let brightness = try #require(device.controls.first { $0.name == "Brightness" }, "controls: \(device.controls.map(\.name))")
            #expect(device.isImageAdjustmentSupported(.brightness))
            try VMCapture.configure(device, try Self.small(device))
            let (session, recorder, _) = try await VMCapture.running(device)
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 3, timeout: .seconds(60)))
            let before = try #require(recorder.samples.items.last?.sample.pixelBuffer).meanOfPlane0
            try device.lockForConfiguration()
            try device.setImageAdjustment(.brightness, to: brightness.maximum)
            device.unlockForConfiguration()
            #expect(try device.imageAdjustment(.brightness) == brightness.maximum)
            let seen = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: seen + 6, timeout: .seconds(60)))
            let after = try #require(recorder.samples.items.last?.sample.pixelBuffer).meanOfPlane0
            #expect(after > before + 10, "mean \(before) → \(after) after brightness \(brightness.maximum)")
            try await session.stop()
        }

        @Test func aStillAtTheLargestSize() async throws {
            let device = try Self.camera()
            let largest = try #require(device.formats.max { $0.width * $0.height < $1.width * $1.height })
            let small = try Self.small(device)
            try VMCapture.configure(device, small)
            let output = CapturePhotoOutput()
            let session = try VMCapture.session(device, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            var settings = CapturePhotoSettings()
            settings.maxPhotoDimensions = PhotoDimensions(width: largest.width, height: largest.height)
            let photo = try await output.capturePhoto(with: settings)
            // The camera switched to the still role's full size for the shot, and back.
            #expect(photo.resolvedSettings.switchesDeviceFormat)
            #expect(device.activeFormat == small && !device.streamConfiguration.servesStills)
            #expect(photo.resolvedSettings.photoDimensions == PhotoDimensions(width: largest.width, height: largest.height))
            try await session.stop()
            let scratch = try PhotoScratch()
            let file = try scratch.write(try #require(photo.fileDataRepresentation()), as: "still.jpg")
            let exif = try PhotoTools.exif(file, in: scratch)
            #expect(exif["ImageWidth"] as? Int == largest.width && exif["ImageHeight"] as? Int == largest.height, "\(exif)")
        }

        @Test func aCameraCamHoldsIsBusyAndNamesIt() async throws {
            let device = try Self.camera()
            let id = String(device.uniqueID.dropFirst("libcamera:".count))
            let small = try Self.small(device)
            try VMCapture.configure(device, small)
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = ["cam", "-c", "1", "--capture=100000", "-s", "width=\(small.width),height=240"]
            let output = Pipe()
            let lines = Recorder<String>()
            output.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if !data.isEmpty { lines.append(String(decoding: data, as: UTF8.self)) }
            }
            holder.standardOutput = output
            holder.standardError = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            holder.terminationHandler = { _ in exited.signal() }
            try holder.run()
            defer {
                // Its lock goes with the process.
                kill(holder.processIdentifier, SIGKILL)
                _ = exited.wait(timeout: .now() + 20)
                output.fileHandleForReading.readabilityHandler = nil
            }
            // cam captures once it holds the camera: its second frame's line is the event.
            #expect(await lines.wait(timeout: .seconds(60)) { $0.joined().contains("seq: 000001") }, "cam never captured: \(lines.items.joined())")
            let session = try VMCapture.session(device, outputs: [CaptureVideoDataOutput()])
            do {
                try await session.start()
                Issue.record("the session started on a camera cam holds")
                try? session.stopRunning()
            } catch {
                #expect(error.code == .deviceBusy, "\(error)")
                let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
                #expect(error.message.contains("by pid \(holder.processIdentifier) (cam)"),
                        "\(error); media nodes \(LibCameraHolders.mediaNodes(of: id)); owners \(LibCameraNodes.nodeOwners()); /proc/locks: \(locks)")
            }
        }

        @Test func unbindingVimcInterruptsAndKeepsAPlayableRecording() async throws {
            let device = try Self.camera()
            let vimc = KernelDriver.vimc
            defer { try? vimc.bind() }
            try await Self.expectUnplugKeepsAPlayableRecording(device, try Self.small(device), name: "libcamera-unbound") { try vimc.unbind() }
        }

        /// Records from `device` in `format`, runs `unplug` once frames reach the file, and checks
        /// what a camera gone mid-recording must give: the session interrupted naming the device,
        /// the recording finished usable (`.deviceDisconnected`), a file that plays.
        static func expectUnplugKeepsAPlayableRecording(_ device: CaptureDevice, _ format: CaptureDevice.Format, name: String,
                                                         unplug: () throws -> Void) async throws {
            try VMCapture.configure(device, format)
            let movie = CaptureMovieFileOutput()
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 2, timeout: .seconds(60)))
            let url = MovieFiles.path(name, "mp4")
            let delegate = RecordingRecorder()
            try movie.startRecording(to: url, recordingDelegate: delegate)
            let from = recorder.samples.count
            #expect(await recorder.samples.wait(forCount: from + 15, timeout: .seconds(120)))
            try unplug()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: device.uniqueID)), timeout: .seconds(30)),
                    "events: \(events.events.items)")
            let finished = try #require(await delegate.finished(timeout: .seconds(30)), "calls: \(delegate.calls.items)")
            if case .didFinish(let code, let usable) = finished {
                #expect(usable && code == .deviceDisconnected, "\(finished)")
            }
            try await session.stop()
            let probe = try ProbedMovie.probe(url.path)
            let video = try #require(probe.video)
            #expect(video.codec == "h264")
            let packets = try ProbedMovie.videoTimestamps(url.path)
            #expect(packets.count >= 10, "\(packets.count) frames in the file")
            try FileFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
        }

        /// vimc taken off its device mid-recording and given back: libcamera 0.0.x keeps a
        /// vanished camera of most pipeline handlers listed, and registering its return under the
        /// same id would abort the process — so the camera leaves the list when its nodes go
        /// (`.disconnected`), comes back as a new libcamera camera on new nodes (the old ones are
        /// still held) and the same device (`.connected`), and the recording resumes by itself:
        /// one playable file with frames from both sides of the gap, every frame accounted for.
        @Test func vimcBoundAgainComesBackAndTheRecordingResumes() async throws {
            let device = try Self.camera()
            let deviceID = device.uniqueID
            try VMCapture.configure(device, try Self.small(device))
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            let frames = CaptureVideoDataOutput()
            frames.alwaysDiscardsLateVideoFrames = false
            frames.videoSettings = VideoTarget(pixelFormat: .bgra)
            let witness = SampleRecorder(label: "tests.vm.libcamera-return")
            witness.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            let events = EventRecorder(session)
            let connections = Recorder<String>()
            let watcher = recordConnectionEvents(into: connections)
            defer { watcher.cancel() }
            let url = MovieFiles.path("libcamera-return", "mkv")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await witness.samples.wait(forCount: 15, timeout: .seconds(120)), "frames before the unbind")
            let nodesBefore = LibCameraNodes.videoNodes(of: String(deviceID.dropFirst("libcamera:".count)))

            let vimc = KernelDriver.vimc
            try vimc.unbind()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: deviceID)), timeout: .seconds(30)),
                    "events: \(events.events.items)")
            #expect(await connections.wait(timeout: .seconds(30)) { $0.contains("-\(deviceID)") }, "\(connections.items)")
            #expect(!CaptureDevice.allDevices.contains { $0.uniqueID == deviceID }, "the vanished camera is still listed")
            let lastBefore = try #require(witness.samples.items.last)
            try vimc.bind()
            #expect(await connections.wait(timeout: .seconds(60)) { $0.contains("+\(deviceID)") }, "\(connections.items)")
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(60)), "events: \(events.events.items)")
            print("vm libcamera: nodes \(nodesBefore) before, \(LibCameraNodes.videoNodes(of: String(deviceID.dropFirst("libcamera:".count)))) after")
            let countAtReturn = witness.samples.count
            #expect(await witness.samples.wait(forCount: countAtReturn + 15, timeout: .seconds(120)), "frames after the return")
            #expect(CaptureDevice.allDevices.first { $0.uniqueID == deviceID } === device, "the same device")
            let recorded = await movie.finishRecording()
            try await session.stop()

            let firstAfter = try #require(witness.samples.items.first { $0.sequenceNumber > lastBefore.sequenceNumber })
            #expect(firstAfter.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp)
            #expect(witness.accounting.isComplete, "\(witness.accounting)")
            let (before, after) = try checkRecordingAcrossAGap(url, recorded)
            #expect(before >= 1 && after >= 1, "frames on both sides of the gap: \(before) and \(after)")
        }
    }
}

extension PixelBuffer {
    /// The mean of the first plane's samples (brightness of a packed RGB frame).
    var meanOfPlane0: Double {
        var total = 0, count = 0
        for row in 0..<rowCount(ofPlane: 0) {
            withUnsafeBytes(ofPlane: 0) { bytes in
                let start = row * bytesPerRow(ofPlane: 0)
                for value in bytes[start..<(start + pixelFormat.minimumBytesPerRow(plane: 0, width: width))] { total += Int(value) }
                count += pixelFormat.minimumBytesPerRow(plane: 0, width: width)
            }
        }
        return count > 0 ? Double(total) / Double(count) : 0
    }
}
