import Foundation
import Glibc
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// A vivid camera as PipeWire's V4L2 monitor (WirePlumber's) offers it: one camera, one
    /// device under the documented policy, and through PipeWire the same pixels the V4L2 backend
    /// captures from the node directly.
    @Suite(.serialized, .tags(.soundServer))
    struct PipeWireVividTests {
        /// A copy of a 640x480 YUYV frame the V4L2 backend captured from `device`; the samples (lent
        /// from the driver's buffers) are let go before it returns, so the node is free again.
        static func directFrame(_ device: CaptureDevice) async throws -> PixelSampler {
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 640, height: 480), fps: 25)
            let (recorder, _) = try await VMCapture.frames(device, count: 4)
            return PixelSampler(try #require(recorder.samples.items.last?.sample.pixelBuffer))
        }

        @Test func vividThroughPipeWireIsListedOnceAndShowsTheSamePicture() async throws {
            let node = VMEnvironment.vivid(0)
            // vivid's static 75 % colour bars without OSD text: every frame has the same pixels.
            try V4L2Ctl.set(node, ["test_pattern": "0", "osd_text_mode": "2", "horizontal_movement": "3", "vertical_movement": "3",
                                   "timestamp_source": "1"])
            // The reference straight from the node, before PipeWire's monitor opens it.
            let direct = try VMEnvironment.device(at: node)
            let referenceFrame = try await Self.directFrame(direct)

            let held = try await AudioDaemons.withPipeWire(v4l2Cameras: true) { daemon in
                try AudioDaemons.poll("WirePlumber's node for \(node)", timeout: .seconds(60)) {
                    ((try? AudioDaemons.run("pw-cli", ["ls", "Node"], environment: daemon.environment)) ?? "").contains("object.path = \"v4l2:\(node)\"")
                }
                func pipeWireRoute() -> [CaptureDevice] {
                    CaptureDevice.allDevices.filter { ($0.backend as? PipeWireCameraBackend)?.objectPath == "v4l2:\(node)" }
                }
                // One camera, one device: this process opens the node itself, so PipeWire's node
                // for it is left out — unless every route is asked for.
                #expect(pipeWireRoute().isEmpty, "\(CaptureDevice.allDevices.map(\.uniqueID))")
                #expect(CaptureDevice.allDevices.filter { $0 === direct }.count == 1)
                setenv("CAPTUREKIT_PIPEWIRE_CAMERAS", "all", 1)
                defer { unsetenv("CAPTUREKIT_PIPEWIRE_CAMERAS") }
                let routed = pipeWireRoute()
                let camera = try #require(routed.count == 1 ? routed.first : nil, "\(CaptureDevice.allDevices.map(\.uniqueID))")
                #expect(camera.uniqueID.hasPrefix("pipewire:") && camera.modelID == "pipewire-v4l2")

                let formats: [CaptureDevice.Format] = camera.formats
                let format = try #require(formats.first { (format: CaptureDevice.Format) -> Bool in
                    format.pixelFormat == .yuyv422 && format.width == 640 && format.height == 480
                }, "\(formats)")
                try camera.lockForConfiguration()
                try camera.setActiveFormat(format)
                try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 25))
                camera.unlockForConfiguration()
                let streamStart = MonotonicClock.nanoseconds()
                let (recorder, _) = try await VMCapture.frames(camera, count: 10)
                let sample = try #require(recorder.samples.items.last?.sample)
                let buffer = try #require(sample.pixelBuffer)
                #expect(buffer.pixelFormat == .yuyv422 && buffer.width == 640 && buffer.height == 480)
                let mismatches = ColorBarPattern.mismatches(in: PixelSampler(buffer), reference: referenceFrame, referenceName: "the V4L2 backend")
                #expect(mismatches.isEmpty, "\(mismatches.count) sampled pixels differ: \(mismatches.prefix(8))")
                // The kernel's capture times, through PipeWire's buffer header, on the session clock.
                try VMCapture.expectKernelTimes(recorder, since: streamStart)
                return recorder.samples.items.compactMap(\.sample.pixelBuffer)
            }
            // The recorder held every frame: the first ones came by reference in PipeWire's
            // buffers, and they still hold the picture with the daemon and its buffers gone.
            let lent = held.filter(\.storage.isLent)
            let first = try #require(lent.first, "frames lent by reference")
            let mismatches = ColorBarPattern.mismatches(in: PixelSampler(first), reference: referenceFrame, referenceName: "the V4L2 backend")
            #expect(mismatches.isEmpty, "a lent frame after the daemon went: \(mismatches.count) sampled pixels differ: \(mismatches.prefix(8))")
            // PipeWire's V4L2 node exports vivid's buffers as DMA-BUFs: each lent frame carries its
            // own, whose bytes are the frame's.
            #expect(lent.allSatisfy { $0.hasDMABuffer }, "\(lent.filter(\.hasDMABuffer).count) of \(lent.count) lent frames carry a DMA-BUF")
            for frame in lent {
                let mismatched: Int? = frame.withDMABuffer { dma in
                    let (descriptor, length, plane) = (dma.fileDescriptor, dma.length, dma.planes[0])
                    guard plane.offset + plane.length <= length, let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0),
                          mapping != MAP_FAILED else { return -1 }
                    defer { munmap(mapping, length) }
                    return frame.withUnsafeBytes(ofPlane: 0) { pixels in
                        // Every 61st byte: all rows and columns without comparing 600 KB per frame.
                        stride(from: 0, to: plane.length, by: 61).filter { pixels[$0] != mapping.load(fromByteOffset: plane.offset + $0, as: UInt8.self) }.count
                    }
                }
                #expect(mismatched == 0, "the DMA-BUF's bytes against the frame's: \(String(describing: mismatched)) differ (-1: not mappable)")
            }
        }
    }
}
