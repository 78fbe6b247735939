import Glibc
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// DMA-BUF export on real drivers: vivid (vb2) exports its buffers, and a frame's descriptor
    /// is a real DMA-BUF of at least the frame's size whose read-only mapping holds exactly the
    /// frame's bytes, still after the session stopped while the frame is held. v4l2loopback's
    /// MJPEG frames are decoded copies, which never carry one.
    @Suite struct DMABufTests {
        @Test func vividFramesCarryTheirBufferAsADMABuf() async throws {
            let node = VMEnvironment.vivid(0)
            // Moving bars make every buffer's content different, so a descriptor naming the
            // wrong buffer shows as a mismatch.
            try V4L2Ctl.set(node, ["horizontal_movement": "0"])
            defer { try? V4L2Ctl.set(node, ["horizontal_movement": "3"]) }
            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 640, height: 480), fps: 25)
            let (recorder, _) = try await VMCapture.frames(device, count: 4)

            // The recorder holds every frame, so the first ones are lent by reference.
            let lent = recorder.samples.items.compactMap(\.sample.pixelBuffer).filter(\.hasDMABuffer)
            #expect(!lent.isEmpty, "vivid exports its vb2 buffers, so frames lent by reference carry a DMA-BUF")
            #expect(Set(lent.compactMap { $0.withDMABuffer { $0.fileDescriptor } }).count == lent.count, "one buffer per held frame")
            for frame in lent {
                // Every use of the descriptor stays inside the scope that lends it.
                let checked: Void? = frame.withDMABuffer { dma in
                    let (descriptor, length, planes) = (dma.fileDescriptor, dma.length, dma.planes)
                    var status = stat()
                    #expect(fstat(descriptor, &status) == 0, "fstat of \(descriptor): errno \(errno)")
                    let frameSize = 640 * 2 * 480
                    let size = lseek(descriptor, 0, SEEK_END)
                    #expect(size >= frameSize && size == length, "DMA-BUF size \(size), frame \(frameSize), buffer \(length)")
                    #expect(planes.count == 1 && planes[0].length == frameSize && planes[0].bytesPerRow == 1280)
                    let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
                    guard let mapping, mapping != MAP_FAILED else {
                        Issue.record("read-only mmap of the DMA-BUF failed: errno \(errno)")
                        return
                    }
                    defer { munmap(mapping, length) }
                    let plane = planes[0]
                    let mismatches = frame.withUnsafeBytes(ofPlane: 0) { pixels in
                        // Every 61st byte: all rows, all columns, without comparing 600 KB per frame.
                        stride(from: 0, to: plane.length, by: 61).filter { pixels[$0] != mapping.load(fromByteOffset: plane.offset + $0, as: UInt8.self) }.count
                    }
                    #expect(mismatches == 0, "\(mismatches) sampled bytes differ between the DMA-BUF and the pixel buffer")
                }
                #expect(checked != nil)
                #expect(frame.packedBytes().contains { $0 != 0 }, "the compared frame holds a picture")
            }
            if lent.count >= 2, let first = lent.first, let second = lent.dropFirst().first {
                #expect(!first.hasSamePixels(as: second), "moving bars: the held buffers hold different frames")
            }
        }

        @Test func decodedLoopbackFramesCarryNoDMABuf() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.loopbackNode)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "MJPG", width: 640, height: 480))
            let (recorder, _) = try await VMCapture.frames(device, count: 3)
            let frames = recorder.samples.items.compactMap(\.sample.pixelBuffer)
            #expect(frames.count >= 3)
            #expect(frames.allSatisfy { !$0.hasDMABuffer }, "MJPEG frames are decoded copies, not the driver's buffer")
        }
    }
}
