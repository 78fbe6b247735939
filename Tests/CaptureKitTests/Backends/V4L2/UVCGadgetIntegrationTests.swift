import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A real USB Video Class camera inside the test VM: `uvcgadget` (scripts/vm/uvcgadget.c) is
    /// the device, through gadgetfs on dummy_hcd's device side, and the kernel's uvcvideo drives
    /// it on the host side as it drives a webcam — so libcamera's `uvcvideo` pipeline handler may
    /// reach it as well. That is what "one camera, one device" is about
    /// (Discovery/OneCameraOneDevice.swift): the camera is listed once, by the V4L2 backend, and
    /// `CAPTUREKIT_CAMERAS=all` lists it by every backend that reaches it. The frames carry the
    /// gadget's known bars and its frame number, so the pixels and the accounting of every frame
    /// are checked against the camera itself. The harness starts the gadget and udevd
    /// (start_uvc_gadget, start_udev in guest-prologue.sh) and runs the suite in a process of its
    /// own (scripts/vm/guest-tests.sh); disabled elsewhere.
    @Suite(.serialized, .tags(.vm, .childProcess),
           .enabled(if: VMEnvironment.isEnabled && ProcessInfo.processInfo.environment["CAPTUREKIT_VM_UVC"] == "1",
                    "runs inside the test VM with the UVC gadget camera and udevd (scripts/vm/guest-tests.sh)"))
    struct UVCGadgetIntegrationTests {
        /// The gadget's product string, which uvcvideo makes the card name, and its USB ids.
        static let productName = "CaptureKit UVC Gadget"
        static let usbID = "1d6b:0102"

        /// Why libcamera 0.0.3 (and every later release) does not list the gadget: its `uvcvideo`
        /// handler names a camera after the firmware node (ACPI path or device-tree node) of the
        /// camera's USB controller, and dummy_hcd is a bare platform device without one, so the
        /// handler refuses the camera ("Can not find controller ID"). A recorded known issue, not
        /// a pass: should libcamera ever list the gadget, the known issue goes unrecorded and the
        /// test fails, asking for the check to be made plain.
        static let libcameraCannotNameIt: Comment =
            "libcamera's uvcvideo handler needs a firmware node (ACPI or device tree) above the USB device to name the camera; dummy_hcd has none"

        /// uvcvideo's capture node, as start_uvc_gadget found it.
        static var node: String {
            ProcessInfo.processInfo.environment["CAPTUREKIT_VM_UVC_NODE"] ?? "/nonexistent/uvc-node-missing-from-CAPTUREKIT_VM_UVC_NODE"
        }

        /// The devices CaptureKit made of uvcvideo's nodes (its capture node; never its metadata
        /// node, which captures no video).
        static func uvcDevices() -> [CaptureDevice] {
            CaptureDevice.allDevices.filter { ($0.backend as? V4L2DeviceBackend)?.node.capability.driver == "uvcvideo" }
        }

        /// The gadget's one device; fails the test when there is not exactly one.
        static func camera(sourceLocation: SourceLocation = #_sourceLocation) throws -> CaptureDevice {
            let devices = uvcDevices()
            return try #require(devices.count == 1 ? devices.first : nil,
                                "expected one uvcvideo device, found \(devices.map(\.uniqueID)) among \(CaptureDevice.allDevices.map(\.uniqueID))",
                                sourceLocation: sourceLocation)
        }

        /// The unique ID a V4L2 camera gets, worked out from what udev and v4l2-ctl say about the
        /// node: its /dev/v4l/by-id name (udev runs, and the gadget is a USB device with a
        /// serial number, so it must have one).
        static func expectedUniqueID(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let folder = "/dev/v4l/by-id"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let name = try #require(names.first { URL(fileURLWithPath: "\(folder)/\($0)").resolvingSymlinksInPath().path == node },
                                    "no /dev/v4l/by-id link to \(node) among \(names)", sourceLocation: sourceLocation)
            return "v4l2:by-id:\(name)"
        }

        /// The lines of `cam -l` (libcamera's own tool, its own process) naming the gadget:
        /// "2: 'CaptureKit UVC Gadget' (…-1d6b:0102)".
        static func camLines() throws -> [String] {
            let text = String(decoding: try FileFixtures.run("cam", ["-l"], includingErrors: true), as: UTF8.self)
            return text.split(separator: "\n").map(String.init)
                .filter { $0.first?.isNumber == true && ($0.contains(productName) || $0.contains(usbID)) }
        }

        /// The number the gadget stamps over the first 8 bytes of each frame (little-endian).
        static func frameNumber(_ buffer: PixelBuffer) -> UInt64 {
            buffer.withUnsafeBytes(ofPlane: 0) { bytes in
                (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << UInt64(8 * $1) }
            }
        }

        /// Listed once, as the V4L2 device of its capture node. libcamera's own tool (`cam -l`, a
        /// process of its own) and the policy's own input (`LibCameraNodes`) are to show a second
        /// route to the same camera, the one the policy leaves out; on dummy_hcd they show none
        /// (``libcameraCannotNameIt``), recorded as a known issue until they do.
        @Test func listedOnceByTheV4L2Backend() throws {
            let device = try Self.camera()
            #expect((device.backend as? V4L2DeviceBackend)?.devicePath == Self.node)
            let expectedID = try Self.expectedUniqueID()
            #expect(device.uniqueID == expectedID)
            #expect(device.uniqueID.hasPrefix("v4l2:by-id:usb-"), "\(device.uniqueID)")
            #expect(device.localizedName == Self.productName && device.hasMediaType(.video) && !device.isVirtual)
            // Nothing else names the camera: no libcamera device, no PipeWire one.
            let others = CaptureDevice.allDevices.filter {
                $0 !== device && ($0.localizedName == Self.productName || $0.uniqueID.contains(Self.usbID) || $0.modelID.contains(Self.usbID))
            }
            #expect(others.isEmpty, "\(others.map(\.uniqueID))")
            // The second route, as libcamera's own tool and the policy's own input see it.
            let lines = try Self.camLines()
            withKnownIssue(Self.libcameraCannotNameIt) {
                #expect(lines.count == 1, "cam -l: \(lines)")
                #expect(LibCameraNodes.nodeOwners().contains { $0.node == Self.node }, "libcamera's nodes: \(LibCameraNodes.nodeOwners())")
            }
        }

        /// `CAPTUREKIT_CAMERAS=all` for a `capture devices --json` child: the camera is listed by
        /// each backend that reaches it (V4L2, and libcamera: a known issue on dummy_hcd, see
        /// ``libcameraCannotNameIt``); without the variable, once.
        @Test func everyBackendListsItWithCamerasAll() throws {
            struct Listed: Decodable {
                var uniqueID: String
                var name: String
                var modelID: String
            }
            func gadgetEntries(_ result: CaptureTool.Result) throws -> [Listed] {
                #expect(result.status == 0 && !result.timedOut, "\(result)")
                return try JSONDecoder().decode([Listed].self, from: Data(result.output.utf8))
                    .filter { $0.name == Self.productName || $0.uniqueID.contains(Self.usbID) || $0.modelID.contains(Self.usbID) }
            }
            let v4l2ID = try Self.expectedUniqueID()
            let all = try gadgetEntries(try CaptureTool.run(["devices", "--json"], through: ["/usr/bin/env", "CAPTUREKIT_CAMERAS=all"]))
            #expect(all.filter { $0.uniqueID.hasPrefix("v4l2:") }.map(\.uniqueID) == [v4l2ID], "\(all.map(\.uniqueID))")
            withKnownIssue(Self.libcameraCannotNameIt) {
                #expect(all.count == 2 && all.filter { $0.uniqueID.hasPrefix("libcamera:") }.count == 1, "\(all.map(\.uniqueID))")
            }
            let once = try gadgetEntries(try CaptureTool.run(["devices", "--json"]))
            #expect(once.map(\.uniqueID) == [v4l2ID])
        }

        /// 20 frames at each of the gadget's sizes through a session: every one shows the
        /// gadget's bars (sampled: a debug build's per-pixel loops are slow under emulation),
        /// they carry the kernel's capture times in order with every frame delivered or reported
        /// dropped, and the gadget's own frame numbers step exactly as the sequence numbers do —
        /// what CaptureKit counts as dropped is what the camera sent and the consumer did not get.
        @Test(arguments: [(320, 240), (640, 480)])
        func framesShowTheGadgetsBarsInOrder(_ width: Int, _ height: Int) async throws {
            let device = try Self.camera()
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: width, height: height), fps: 30)
            let streamStart = MonotonicClock.nanoseconds()
            let (recorder, _) = try await VMCapture.frames(device, count: 20, timeout: .seconds(120))
            let frames = recorder.samples.items
            #expect(frames.count >= 20)
            try VMCapture.expectKernelTimes(recorder, since: streamStart)

            var numbered: [(sequence: UInt64, number: UInt64)] = []
            for frame in frames {
                let buffer = try #require(frame.sample.pixelBuffer)
                try #require(buffer.pixelFormat == .yuyv422 && buffer.width == width && buffer.height == height,
                             "frame \(frame.sequenceNumber): \(buffer.width)x\(buffer.height) \(buffer.pixelFormat.rawValue)")
                numbered.append((frame.sequenceNumber, Self.frameNumber(buffer)))
                // Bar b (of 8) holds Y = 16 + 29 b, U = 64 + 16 b, V = 192 - 16 b; row 0 begins
                // with the frame number, so the rows sampled are below it.
                let sampler = PixelSampler(buffer)
                var wrong: [String] = []
                for y in [1, height / 2, height - 1] {
                    for bar in 0..<8 {
                        let x = bar * width / 8 + width / 16
                        let expected = (16 + 29 * bar, 64 + 16 * bar, 192 - 16 * bar)
                        guard let got = sampler.components(x: x, y: y) else {
                            wrong.append("(\(x), \(y)) unreadable")
                            continue
                        }
                        if got != expected { wrong.append("(\(x), \(y)) \(got) not \(expected)") }
                    }
                }
                #expect(wrong.isEmpty, "frame \(frame.sequenceNumber) (gadget's \(Self.frameNumber(buffer))): \(wrong.prefix(6))")
            }
            for (previous, next) in zip(numbered, numbered.dropFirst()) {
                // (in this order: unsigned differences only once both numbers have grown)
                let inStep = next.number > previous.number && next.sequence > previous.sequence
                    && next.number - previous.number == next.sequence - previous.sequence
                #expect(inStep, "frames \(previous.sequence) → \(next.sequence) are the gadget's \(previous.number) → \(next.number)")
            }
        }
    }
}
