import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// Streaming from a scripted node: frames by reference from the mapped buffers, sequence gaps,
/// V4L2_BUF_FLAG_ERROR and short frames dropped and counted, MJPEG decoded with real corrupt
/// JPEGs dropped, and every failure at every streaming ioctl reported as a typed error with
/// nothing left open or mapped.
@Suite("V4L2Streaming", .excludable)
struct V4L2StreamTests {
    typealias Record = V4L2Fixtures.Record

    private func run(_ script: ScriptedV4L2Device.Script, until condition: @escaping @Sendable ([Record]) -> Bool,
                     holdingFrames: Bool = false) async throws -> ([Record], ScriptedOpener, V4L2DeviceBackend) {
        let (backend, opener) = try V4L2Fixtures.backend(script)
        let recorder = Recorder<Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: V4L2Fixtures.sink(recorder))
        let satisfied = await recorder.wait(timeout: .seconds(10), until: condition)
        stream.stop()
        #expect(satisfied, "the stream delivered what the script holds")
        return (recorder.items, opener, backend)
    }

    @Test func gapsErrorFlagsAndShortFramesAreDroppedAndCounted() async throws {
        var script = V4L2Fixtures.yuyvScript()
        var short = V4L2Fixtures.yuyvFrame(60, sequence: 6)
        short.bytesUsed = 10
        var flagged = V4L2Fixtures.yuyvFrame(50, sequence: 5)
        flagged.hasError = true
        script.frames = [V4L2Fixtures.yuyvFrame(10, sequence: 0), V4L2Fixtures.yuyvFrame(20, sequence: 1),
                         V4L2Fixtures.yuyvFrame(40, sequence: 4), flagged, short, V4L2Fixtures.yuyvFrame(70, sequence: 7)]
        let (records, _, _) = try await run(script) { records in records.compactMap(\.sample).count == 4 }
        let samples = records.compactMap(\.sample)
        #expect(samples.map(\.sequenceNumber) == [0, 1, 4, 7])
        let dropped: Int = records.map(\.dropped).reduce(0, +)
        #expect(dropped == 4, "two skipped by the driver, one flagged, one short")
        for sample in samples {
            let pixels = try #require(sample.pixelBuffer)
            #expect(pixels.pixelFormat == .yuyv422)
            #expect(pixels.width == V4L2Fixtures.width)
            let expected: [UInt64: UInt8] = [0: 10, 1: 20, 4: 40, 7: 70]
            #expect(pixels.packedBytes().allSatisfy { $0 == expected[sample.sequenceNumber] })
            #expect(sample.presentationTimeStamp == MediaTime(value: 1_000_000_000 + Int64(sample.sequenceNumber) * 33_333_333, timescale: 1_000_000_000))
        }
    }

    @Test func framesAreLentFromTheMappedBuffersAndCopiedWhenConsumersHoldTooMany() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = (0..<12).map { V4L2Fixtures.yuyvFrame(UInt8($0 * 10), sequence: UInt32($0)) }
        let (records, opener, _) = try await run(script) { $0.compactMap(\.sample).count == 12 }
        // The recorder keeps every frame: the first two are lent (two buffers stay queued),
        // the rest must be copies or the driver would starve.
        let samples = records.compactMap(\.sample)
        #expect(samples.count == 12, "holding every frame never starves the device")
        #expect(records.map(\.dropped).reduce(0, +) == 0)
        #expect(opener.opened.last?.calls.contains("VIDIOC_STREAMON") == true)
        let lent = samples.filter(Self.isMapped)
        #expect(lent.count == 2)
        for (index, sample) in samples.enumerated() {
            #expect(sample.pixelBuffer?.packedBytes().allSatisfy { $0 == UInt8(index * 10) } == true)
        }
    }

    /// Whether a frame's memory is a driver buffer (its storage wraps memory it does not own:
    /// lent frames have exactly the frame's byte count, pooled copies are 64-byte-row padded).
    private static func isMapped(_ sample: SampleBuffer) -> Bool {
        guard let pixels = sample.pixelBuffer else { return false }
        return pixels.bytesPerRow(ofPlane: 0) == V4L2Fixtures.width * 2
    }

    @Test func releasedFramesGoBackToTheDriver() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = (0..<40).map { V4L2Fixtures.yuyvFrame(UInt8($0), sequence: UInt32($0)) }
        let (backend, opener) = try V4L2Fixtures.backend(script)
        let counter = Recorder<UInt64>()
        let sink = StreamSink(deliver: { sample in
            // Let go at once, as a consumer that keeps up does: every frame can be lent.
            counter.append(Self.isMapped(sample) ? 1 : 0)
        }, event: { _ in })
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: sink)
        #expect(await counter.wait(forCount: 40, timeout: .seconds(30)))
        stream.stop()
        #expect(counter.items.allSatisfy { $0 == 1 }, "a consumer that lets go gets every frame by reference")
        let device = try #require(opener.opened.last)
        #expect(device.calls.filter { $0 == "VIDIOC_QBUF" }.count >= 40)
    }

    @Test func interruptedStreamingCallsAreRetried() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = (0..<6).map { V4L2Fixtures.yuyvFrame(UInt8($0), sequence: UInt32($0)) }
        script.interruptions = ["VIDIOC_DQBUF": 300, "VIDIOC_QBUF": 300, "VIDIOC_STREAMON": 50, "VIDIOC_S_FMT": 50]
        let (records, _, _) = try await run(script) { $0.compactMap(\.sample).count == 6 }
        #expect(records.compactMap(\.sample).count == 6)
        #expect(!records.contains { if case .failed = $0 { return true } else { return false } })
    }

    @Test func deviceVanishingMidNetworkInterrupts() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = [V4L2Fixtures.yuyvFrame(1, sequence: 0), V4L2Fixtures.yuyvFrame(2, sequence: 1)]
        script.endErrno = ENODEV
        let (records, opener, backend) = try await run(script) { $0.contains { if case .disconnected = $0 { return true } else { return false } } }
        #expect(records.compactMap(\.sample).count == 2, "frames before the removal are delivered")
        opener.openErrno = ENODEV
        #expect(!backend.isConnected, "a node that answers ENODEV is not connected")
        opener.openErrno = nil
        #expect(backend.isConnected, "a node that answers again is back (vivid re-registers after Disconnect)")
        opener.present = false
        #expect(!backend.isConnected, "a removed node is gone")
    }

    @Test func fatalStreamingErrorFailsTheStream() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = [V4L2Fixtures.yuyvFrame(1, sequence: 0)]
        script.endErrno = EIO
        let (records, _, backend) = try await run(script) { $0.contains { if case .failed = $0 { return true } else { return false } } }
        let failure = records.compactMap { record -> CaptureError? in if case .failed(let e) = record { return e } else { return nil } }.first
        #expect(failure?.operation == "VIDIOC_DQBUF")
        #expect(failure?.errno == EIO)
        #expect(backend.isConnected, "an I/O error is not a removal")
    }

    static let streamingCalls = ["VIDIOC_S_FMT", "VIDIOC_S_PARM", "VIDIOC_REQBUFS", "VIDIOC_QUERYBUF", "mmap", "VIDIOC_EXPBUF", "VIDIOC_QBUF", "VIDIOC_STREAMON"]

    @Test(arguments: streamingCalls)
    func everyStartCallFailureIsTypedAndLeavesNothingOpen(call: String) throws {
        for (code, expected) in [(EBUSY, CaptureError.Code.deviceBusy), (EACCES, .notAuthorized), (ENODEV, .deviceDisconnected)] {
            var script = V4L2Fixtures.yuyvScript()
            script.failures[call] = code
            let (backend, opener) = try V4L2Fixtures.backend(script)
            do {
                let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: StreamSink(deliver: { _ in }, event: { _ in }))
                stream.stop()
                Issue.record("\(call) failing with \(code) did not fail the start")
            } catch {
                #expect(error.code == expected, "\(call) errno \(code)")
                #expect(error.operation == call)
            }
            for device in opener.opened {
                #expect(device.isClosed, "\(call): node closed")
                #expect(device.mappedCount == device.unmappedCount, "\(call): buffers unmapped")
                #expect(device.closedDescriptors == device.exportedDescriptors, "\(call): DMA-BUFs closed")
            }
        }
    }

    @Test func openFailuresNameTheCause() throws {
        let (backend, opener) = try V4L2Fixtures.backend(V4L2Fixtures.yuyvScript())
        opener.openErrno = EACCES
        #expect {
            _ = try backend.startStream(V4L2Fixtures.configuration(backend), sink: StreamSink(deliver: { _ in }, event: { _ in }))
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .notAuthorized && error.message.contains("'video' group") && error.operation == "open"
        }
        opener.openErrno = ENODEV
        #expect(throws: CaptureError.self) {
            _ = try backend.startStream(V4L2Fixtures.configuration(backend), sink: StreamSink(deliver: { _ in }, event: { _ in }))
        }
    }

    @Test func tooFewBuffersIsAnError() throws {
        var script = V4L2Fixtures.yuyvScript()
        script.grantedBuffers = 1
        let (backend, opener) = try V4L2Fixtures.backend(script)
        #expect(throws: CaptureError.self) {
            _ = try backend.startStream(V4L2Fixtures.configuration(backend), sink: StreamSink(deliver: { _ in }, event: { _ in }))
        }
        let closed = opener.opened.allSatisfy { $0.isClosed }
        #expect(closed)
    }

    // MARK: MJPEG

    /// A real JPEG of a flat mid-grey 16x8 frame, from libjpeg-turbo.
    private static func jpeg() throws -> [UInt8] {
        let frame = try PixelBuffer(width: V4L2Fixtures.width, height: V4L2Fixtures.height, pixelFormat: .rgb24)
        _ = frame.withUnsafeMutableBytes(ofPlane: 0) { $0.initializeMemory(as: UInt8.self, repeating: 128) }
        return Array(try JPEGEncoder.encode(frame, quality: 90, metadata: nil))
    }

    @Test func corruptMJPEGFramesAreDroppedAndCountedNotDelivered() async throws {
        let good = try Self.jpeg()
        var script = ScriptedV4L2Device.Script()
        script.formats = [ScriptedV4L2Device.FormatEntry(
            description: V4L2FormatDescription(fourCC: .mjpeg, description: "Motion-JPEG", isCompressed: true),
            sizes: [.discrete(width: V4L2Fixtures.width, height: V4L2Fixtures.height)], intervals: [.discrete(V4L2Fixtures.fraction(1, 30))])]
        let truncated = Array(good.prefix(good.count / 2))
        let garbage = [UInt8](repeating: 0x5A, count: 200)
        var wrongSize = good
        wrongSize[0] = 0 // no SOI marker
        script.frames = [
            ScriptedV4L2Device.Frame(bytes: good, sequence: 0, timestamp: 1_000),
            ScriptedV4L2Device.Frame(bytes: truncated, sequence: 1, timestamp: 2_000),
            ScriptedV4L2Device.Frame(bytes: garbage, sequence: 2, timestamp: 3_000),
            ScriptedV4L2Device.Frame(bytes: wrongSize, sequence: 3, timestamp: 4_000),
            ScriptedV4L2Device.Frame(bytes: good, sequence: 4, timestamp: 5_000),
        ]
        let (records, _, _) = try await run(script) { records in
            records.compactMap(\.sample).count == 2 && records.map(\.dropped).reduce(0, +) == 3
        }
        let samples = records.compactMap(\.sample)
        #expect(samples.map(\.sequenceNumber) == [0, 4])
        #expect(records.map(\.dropped).reduce(0, +) == 3)
        let decoded = try #require(samples.first?.pixelBuffer)
        #expect(decoded.pixelFormat == .rgb24)
        #expect(decoded.packedBytes().allSatisfy { abs(Int($0) - 128) <= 2 }, "decoded pixels are the grey that was encoded")
    }

    @Test func decoderRefusesTruncatedJPEGWithTheReason() throws {
        let good = try Self.jpeg()
        let decoder = try MJPEGDecoder(width: V4L2Fixtures.width, height: V4L2Fixtures.height)
        let truncated = Array(good.prefix(good.count - 20))
        #expect {
            _ = try truncated.withUnsafeBytes { (bytes) throws(CaptureError) in try decoder.decode(bytes) }
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .conversionFailed && error.message.contains("corrupt MJPEG frame")
        }
        let frame = try good.withUnsafeBytes { (bytes) throws(CaptureError) in try decoder.decode(bytes) }
        #expect(frame.width == V4L2Fixtures.width)
    }

    @Test func sequenceTrackerCountsOnlyForwardJumpsAndNumbersFramesOnwards() {
        var tracker = V4L2SequenceTracker()
        let period: Int64 = 33_333_333
        func record(_ sequence: UInt32, frame: Int64) -> V4L2SequenceTracker.Step {
            tracker.record(sequence, at: frame * period, frameDuration: period)
        }
        #expect(record(10, frame: 0) == .init(number: 10, skipped: 0))
        #expect(record(11, frame: 1) == .init(number: 11, skipped: 0))
        #expect(record(15, frame: 5) == .init(number: 15, skipped: 3))
        #expect(record(2, frame: 6) == .init(number: 16, skipped: 0), "a restart of the counter is not a drop, and the numbers run on")
        #expect(record(3, frame: 7) == .init(number: 17, skipped: 0))
        #expect(record(UInt32.max, frame: 8) == .init(number: 18 + UInt64(UInt32.max) - 4, skipped: Int(UInt32.max) - 4))
    }

    /// v4l2loopback resets its buffers' numbers at VIDIOC_REQBUFS and hands out the frame
    /// written last before it first, numbered 0; the next frame carries the writer's count.
    @Test func aFirstFrameNumberedZeroBeforeAWritersCountIsARenumberingNotALoss() {
        let period: Int64 = 33_333_333
        var loopback = V4L2SequenceTracker()
        #expect(loopback.record(0, at: 5_000_000_000, frameDuration: period) == .init(number: 0, skipped: 0))
        #expect(loopback.record(734, at: 5_100_000_000, frameDuration: period) == .init(number: 1, skipped: 0))
        #expect(loopback.record(737, at: 5_200_000_000, frameDuration: period) == .init(number: 4, skipped: 2), "later skips count")
        // A driver that starts at 0 and skips four frames in the time of five: a loss.
        var skipping = V4L2SequenceTracker()
        _ = skipping.record(0, at: 0, frameDuration: period)
        #expect(skipping.record(5, at: 5 * period, frameDuration: period) == .init(number: 5, skipped: 4))
        // Only the second frame after a first numbered 0 can be a renumbering.
        var running = V4L2SequenceTracker()
        _ = running.record(3, at: 0, frameDuration: period)
        #expect(running.record(900, at: period, frameDuration: period).skipped == 896)
        var later = V4L2SequenceTracker()
        _ = later.record(0, at: 0, frameDuration: period)
        _ = later.record(1, at: period, frameDuration: period)
        #expect(later.record(900, at: 2 * period, frameDuration: period).skipped == 898)
    }

    @Test func aRenumberedFirstFrameIsDeliveredWithoutReportingTheWritersCountAsDrops() async throws {
        var script = V4L2Fixtures.yuyvScript()
        script.frames = [V4L2Fixtures.yuyvFrame(1, sequence: 0, timestamp: 5_000_000_000),
                         V4L2Fixtures.yuyvFrame(2, sequence: 734, timestamp: 5_100_000_000),
                         V4L2Fixtures.yuyvFrame(3, sequence: 737, timestamp: 5_200_000_000)]
        let (records, _, _) = try await run(script) { $0.compactMap(\.sample).count == 3 }
        #expect(records.compactMap(\.sample).map(\.sequenceNumber) == [0, 1, 4])
        #expect(records.map(\.dropped).reduce(0, +) == 2, "only the two frames skipped after the renumbering")
    }
}
