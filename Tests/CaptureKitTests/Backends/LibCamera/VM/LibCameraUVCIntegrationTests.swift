import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// One camera, one device, for a camera both the V4L2 backend and libcamera reach: vivid_uvc
    /// (vivid as a USB camera, scripts/vm/vivid-uvc.patch), which libcamera's `uvcvideo`
    /// pipeline handler lists as it lists a USB webcam, in the test VM with udevd, and `cam` as
    /// the witness of what libcamera lists. The harness runs it in a process of its own
    /// (scripts/vm/guest-tests.sh); disabled elsewhere.
    @Suite(.serialized, .tags(.vm, .childProcess),
           .enabled(if: VMEnvironment.isEnabled && ProcessInfo.processInfo.environment["CAPTUREKIT_VM_LIBCAMERA_UVC"] == "1",
                    "runs inside the test VM with vivid_uvc and udevd (scripts/vm/guest-tests.sh)"))
    struct LibCameraUVCIntegrationTests {
        static let v4l2ID = "v4l2:platform:vivid_uvc-000:vivid_uvc"

        /// The id libcamera gives the camera ("\_SB_.PCI0.S00_-vivid_uvc.0-1d6b:0104": its
        /// controller's ACPI node, its device and its USB vendor and product), as `cam -l` shows it.
        static func cameraID() throws -> String {
            let ids = try LibCameraIntegrationTests.camCameras()
            return try #require(ids.first { $0.hasSuffix("-vivid_uvc.0-1d6b:0104") }, "cam -l does not list vivid_uvc: \(ids)")
        }

        /// The camera's one V4L2 device, as discovery lists it.
        static func v4l2Device() throws -> CaptureDevice {
            try #require(CaptureDevice.allDevices.first { $0.uniqueID == v4l2ID }, "no \(v4l2ID) among \(CaptureDevice.allDevices.map(\.uniqueID))")
        }

        /// The camera through libcamera's route (the device `CAPTUREKIT_CAMERAS=all` lists) and
        /// its YUYV 640x480 format.
        static func libcameraRoute() throws -> (CaptureDevice, CaptureDevice.Format) {
            let id = try cameraID()
            let backend = try #require(LibCameraDeviceProvider.shared.libcameraBackends().first { $0.cameraID == id })
            let device = CaptureDevice(backend: backend)
            let format = try #require(device.formats.first { $0.pixelFormat == .yuyv422 && $0.width == 640 && $0.height == 480 },
                                      "no yuyv422 640x480 in \(device.formats)")
            return (device, format)
        }

        /// The device IDs a `capture devices` listing shows (its third column).
        static func listedIDs(_ result: CaptureTool.Result) -> [String] {
            result.output.split(separator: "\n").compactMap { line in
                let columns = line.split(separator: "\t")
                return columns.count > 2 ? String(columns[2]) : nil
            }
        }

        @Test func theCameraBothReachIsListedOnceThroughV4L2() throws {
            let id = try Self.cameraID()
            let device = try Self.v4l2Device()
            let listed = CaptureDevice.allDevices.map(\.uniqueID).filter { $0.contains("vivid_uvc") || $0 == "libcamera:\(id)" }
            #expect(listed == [Self.v4l2ID], "\(listed)")
            // libcamera lists it, and maps the V4L2 device's node to it: the policy left it out.
            #expect(LibCameraDeviceProvider.shared.libcameraBackends().contains { $0.cameraID == id })
            let node = try #require((device.backend as? V4L2DeviceBackend)?.devicePath)
            let owners = LibCameraNodes.nodeOwners()
            #expect(owners.contains { $0.node == node && $0.id == id }, "\(owners)")
        }

        @Test func everyRouteIsListedWhenAskedFor() throws {
            let id = try Self.cameraID()
            let all = try CaptureTool.run(["devices"], through: ["/usr/bin/env", "CAPTUREKIT_CAMERAS=all"], timeout: .seconds(120))
            #expect(all.status == 0, "\(all)")
            #expect(Self.listedIDs(all).filter { $0.contains("vivid_uvc") }.sorted() == ["libcamera:\(id)", Self.v4l2ID].sorted(), "\(all.output)")
            let plain = try CaptureTool.run(["devices"], timeout: .seconds(120))
            #expect(plain.status == 0, "\(plain)")
            #expect(Self.listedIDs(plain).filter { $0.contains("vivid_uvc") } == [Self.v4l2ID], "\(plain.output)")
        }

        /// Through libcamera's route (what `CAPTUREKIT_CAMERAS=all` lists), the camera streams
        /// the frames the V4L2 node gives v4l2-ctl: vivid's bars, lent by reference (while
        /// enough buffers stay queued), stamped with the kernel's times.
        @Test func theLibCameraRouteStreamsTheSameFrames() async throws {
            let node = try #require((try Self.v4l2Device().backend as? V4L2DeviceBackend)?.devicePath)
            try V4L2Ctl.set(node, ["test_pattern": "0", "osd_text_mode": "2", "horizontal_movement": "3", "vertical_movement": "3",
                                   "timestamp_source": "1"])
            let reference = PixelSampler(raw: try V4L2Ctl.captureFrame(node, fourCC: "YUYV", width: 640, height: 480),
                                         pixelFormat: .yuyv422, width: 640, height: 480)

            let (device, format) = try Self.libcameraRoute()
            try VMCapture.configure(device, format)
            let start = MonotonicClock.nanoseconds()
            let (recorder, _) = try await VMCapture.frames(device, count: 4, timeout: .seconds(120))
            let buffer = try #require(recorder.samples.items.last?.sample.pixelBuffer)
            #expect(buffer.pixelFormat == .yuyv422 && buffer.width == 640 && buffer.height == 480, "\(buffer.pixelFormat) \(buffer.width)x\(buffer.height)")
            #expect(recorder.samples.items.contains { $0.sample.pixelBuffer?.hasDMABuffer == true }, "no frame came by reference")
            let mismatches = ColorBarPattern.mismatches(in: PixelSampler(buffer), reference: reference, referenceName: "v4l2-ctl")
            #expect(mismatches.isEmpty, "\(mismatches.count) sampled pixels wrong: \(mismatches.prefix(8))")
            try VMCapture.expectKernelTimes(recorder, since: start)
        }

        /// Unplugged and plugged in again, the camera goes and comes back as its one device:
        /// libcamera's uvcvideo handler takes the returning camera too (its hot-plug support),
        /// and announces it, but no connection event names that route.
        @Test func unpluggedAndBackIsOneDeviceGoingAndComing() async throws {
            let id = try Self.cameraID()
            _ = try Self.v4l2Device()
            let connections = Recorder<String>()
            let watcher = recordConnectionEvents(into: connections)
            defer { watcher.cancel() }
            let changes = LibCameraDeviceProvider.shared.handledChanges()
            let handled = Recorder<Set<String>>()
            let handler = Task { for await ids in changes { handled.append(ids) } }
            defer { handler.cancel() }
            let driver = KernelDriver.vividUVC
            try driver.unbind()
            var bound = false
            defer { if !bound { try? driver.bind() } }
            #expect(await connections.wait(timeout: .seconds(30)) { $0.contains("-\(Self.v4l2ID)") }, "\(connections.items)")
            try driver.bind()
            bound = true
            #expect(await connections.wait(timeout: .seconds(60)) { $0.contains("+\(Self.v4l2ID)") }, "\(connections.items)")
            // libcamera's hot-plug of the returning camera has been handled (posted, or left out) …
            #expect(await handled.wait(timeout: .seconds(60)) { $0.contains { $0.contains(id) } }, "\(handled.items)")
            // … and no connection event names libcamera's route (the window only covers this
            // test's listener task catching up with what the hub already yielded).
            let named = await connections.wait(timeout: .seconds(5)) { $0.contains { $0.contains("libcamera:") } }
            #expect(!named, "\(connections.items)")
            #expect(CaptureDevice.allDevices.map(\.uniqueID).filter { $0.contains("vivid_uvc") || $0.contains(id) } == [Self.v4l2ID])
        }

        /// The camera unplugged mid-recording through libcamera's route (a pipeline handler that
        /// takes hot-plug, unlike vimc's): the session is interrupted, and the recording ends
        /// usable and plays.
        @Test func unpluggedMidRecordingThroughLibCameraTheRecordingPlays() async throws {
            let (device, format) = try Self.libcameraRoute()
            let driver = KernelDriver.vividUVC
            defer { try? driver.bind() }
            try await LibCameraIntegrationTests.expectUnplugKeepsAPlayableRecording(device, format, name: "libcamera-uvc-unplugged") {
                try driver.unbind()
            }
        }
    }
}
