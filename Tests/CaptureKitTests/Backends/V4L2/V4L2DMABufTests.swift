import Glibc
import Testing
@testable import CaptureKit

/// DMA-BUF export of the driver buffers (VIDIOC_EXPBUF): descriptors kept with the ring and
/// closed with it, drivers that cannot export (ENOTTY, EINVAL) streaming without them, a
/// failure midway closing what was exported, and only frames lent by reference carrying one.
@Suite("V4L2DMABuf", .excludable)
struct V4L2DMABufTests {
    private static let exported: [Int32] = [10_000, 10_001, 10_002, 10_003]

    @Test func exportedDescriptorsLiveAsLongAsTheRing() throws {
        let device = ScriptedV4L2Device(script: V4L2Fixtures.yuyvScript())
        var ring: V4L2BufferRing? = try V4L2BufferRing(io: device, bufferType: .capture, count: 4)
        #expect(ring?.isDMABufExportSupported == true)
        #expect(ring?.exportedDescriptors == Self.exported)
        #expect(ring?.exportedDescriptor(of: 3) == 10_003)
        #expect(ring?.exportedDescriptor(of: 4) == nil)
        #expect(device.closedDescriptors.isEmpty, "open while the ring lives")
        ring?.stop()
        #expect(device.closedDescriptors.isEmpty, "stopping keeps them for frames still held")
        ring = nil
        #expect(device.closedDescriptors == Self.exported)
        #expect(device.isClosed)
        #expect(device.unmappedCount == 4)
    }

    @Test(arguments: [ENOTTY, EINVAL])
    func driversThatCannotExportStreamWithout(code: Int32) throws {
        var script = V4L2Fixtures.yuyvScript()
        script.failures["VIDIOC_EXPBUF"] = code
        let device = ScriptedV4L2Device(script: script)
        let ring = try V4L2BufferRing(io: device, bufferType: .capture, count: 4)
        #expect(!ring.isDMABufExportSupported)
        #expect(ring.exportedDescriptor(of: 0) == nil)
        #expect(ring.queuedCount == 4, "the buffers are queued as without export")
        #expect(device.calls.filter { $0 == "VIDIOC_EXPBUF" }.count == 1, "one refusal is enough")
    }

    @Test func refusalMidwayClosesTheExportedOnesAndStreamsWithout() throws {
        var script = V4L2Fixtures.yuyvScript()
        script.delayedFailures["VIDIOC_EXPBUF"] = .init(successes: 2, errno: ENOTTY)
        let device = ScriptedV4L2Device(script: script)
        let ring = try V4L2BufferRing(io: device, bufferType: .capture, count: 4)
        #expect(!ring.isDMABufExportSupported)
        #expect(device.closedDescriptors == [10_000, 10_001])
    }

    @Test func failureMidwayClosesTheExportedOnesAndUndoesEverything() throws {
        var script = V4L2Fixtures.yuyvScript()
        script.delayedFailures["VIDIOC_EXPBUF"] = .init(successes: 2, errno: EMFILE)
        let device = ScriptedV4L2Device(script: script)
        #expect {
            _ = try V4L2BufferRing(io: device, bufferType: .capture, count: 4)
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .systemCallFailed && error.errno == EMFILE && error.operation == "VIDIOC_EXPBUF"
        }
        #expect(device.exportedDescriptors == [10_000, 10_001])
        #expect(device.closedDescriptors == [10_000, 10_001])
        #expect(device.mappedCount == 4 && device.unmappedCount == 4)
        #expect(device.isClosed)
    }

    @Test func failureAfterExportClosesTheDescriptors() throws {
        var script = V4L2Fixtures.yuyvScript()
        script.failures["VIDIOC_QBUF"] = ENODEV
        let device = ScriptedV4L2Device(script: script)
        #expect(throws: CaptureError.self) { _ = try V4L2BufferRing(io: device, bufferType: .capture, count: 4) }
        #expect(device.closedDescriptors == Self.exported)
        #expect(device.isClosed)
    }

    @Test func onlyFramesLentByReferenceCarryTheDMABuffer() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = (0..<8).map { V4L2Fixtures.yuyvFrame(UInt8($0), sequence: UInt32($0)) }
        let (backend, opener) = try V4L2Fixtures.backend(script)
        let recorder = Recorder<V4L2Fixtures.Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: V4L2Fixtures.sink(recorder))
        #expect(await recorder.wait(timeout: .seconds(30)) { $0.compactMap(\.sample).count == 8 })
        stream.stop()
        let device = try #require(opener.opened.last)
        // The recorder holds every frame, so the first two are lent and the rest are copies.
        let frames = recorder.items.compactMap(\.sample).compactMap(\.pixelBuffer)
        #expect(frames.count == 8)
        let lent = frames.filter(\.hasDMABuffer)
        #expect(lent.count == 2)
        var descriptors: Set<Int32> = []
        for frame in lent {
            // What the public API lends, read inside its scope.
            let dma = try #require(frame.withDMABuffer { dma in (fileDescriptor: dma.fileDescriptor, length: dma.length, planes: dma.planes) })
            #expect(device.exportedDescriptors.contains(dma.fileDescriptor))
            #expect(dma.length >= V4L2Fixtures.width * 2 * V4L2Fixtures.height)
            #expect(dma.planes == [DMABuffer.Plane(offset: 0, bytesPerRow: V4L2Fixtures.width * 2,
                                                   length: V4L2Fixtures.width * 2 * V4L2Fixtures.height)])
            #expect(frame.bytesPerRow(ofPlane: 0) == dma.planes[0].bytesPerRow)
            descriptors.insert(dma.fileDescriptor)
        }
        #expect(frames.filter { !$0.hasDMABuffer }.allSatisfy { $0.withDMABuffer { _ in true } == nil }, "copies lend none")
        #expect(descriptors.count == 2, "each lent frame names its own buffer")
        #expect(device.closedDescriptors.isEmpty, "descriptors stay open while frames are held")
    }
}
