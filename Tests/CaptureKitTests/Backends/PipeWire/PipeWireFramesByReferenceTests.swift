import Dispatch
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// PipeWire camera frames lent by reference: the buffers PipeWire shares with the stream
    /// reach the delegate without a copy, a consumer that holds frames gets copies once only
    /// enough buffers for the producer are left, and a held frame stays readable after its
    /// stream, and even its daemon, went away.
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct PipeWireFramesByReferenceTests {
        /// Records whether each frame came by reference, and lets it go at once.
        final class LentRecorder: SampleBufferDelegate {
            let lent = Recorder<Bool>()

            func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
                lent.append(sampleBuffer.pixelBuffer?.storage.isLent == true)
            }
        }

        @Test func aConsumerThatLetsGoGetsEveryFrameByReference() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire(camera: true) { _ in
                let camera = try PipeWireCameraTests.testCamera()
                let format = try #require(camera.formats.first { $0.pixelFormat == .uyvy422 && $0.width == 320 && $0.height == 240 })
                try camera.lockForConfiguration()
                try camera.setActiveFormat(format)
                camera.unlockForConfiguration()
                // Late frames are discarded (the default), so however slowly the delegate runs, at
                // most a frame waits for it: never enough held to leave the producer short.
                let output = CaptureVideoDataOutput()
                let recorder = LentRecorder()
                output.setSampleBufferDelegate(recorder, queue: DispatchQueue(label: "tests.lent"))
                let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.lent.wait(forCount: 40, timeout: .seconds(30)))
                try await session.stop()
                #expect(recorder.lent.items.allSatisfy { $0 }, "copied frames: \(recorder.lent.items.filter { !$0 }.count) of \(recorder.lent.count)")
            }
        }

        @Test func heldFramesLeaveTheProducerItsBuffersAndOutliveTheDaemon() async throws {
            guard try AudioDaemons.requireTools() else { return }
            let held = try await AudioDaemons.withPipeWire(camera: true) { _ in
                let (session, recorder) = try PipeWireCameraTests.session(pixelFormat: .uyvy422, width: 320, height: 240)
                let output = try #require(session.outputs.first as? CaptureVideoDataOutput)
                output.alwaysDiscardsLateVideoFrames = false
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.samples.wait(forCount: 30, timeout: .seconds(30)))
                try await session.stop()
                // Holding every frame starves nothing: each one is delivered or reported dropped.
                #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
                return recorder.samples.items.compactMap(\.sample.pixelBuffer)
            }
            // The daemon is gone and with it every buffer it shared; the frames held are still
            // the stream's buffers, mapped by the shim, and still hold their pictures.
            let lent = held.filter(\.storage.isLent)
            let copies = held.filter { !$0.storage.isLent }
            #expect(!lent.isEmpty, "the first frames are lent by reference")
            #expect(!copies.isEmpty, "frames held past the producer's share are copies")
            #expect(lent.count <= 4, "at most the buffers asked for (8) less the four kept in circulation: \(lent.count) lent")
            let copy = try #require(copies.first)
            for frame in lent {
                // videotestsrc's bars fill the top two thirds of every frame alike (its snow, below, does not).
                let same = frame.withUnsafeBytes(ofPlane: 0) { pixels in
                    copy.withUnsafeBytes(ofPlane: 0) { copied in
                        (0..<160).allSatisfy { row in
                            (0..<640).allSatisfy { pixels[row * frame.bytesPerRow(ofPlane: 0) + $0] == copied[row * copy.bytesPerRow(ofPlane: 0) + $0] }
                        }
                    }
                }
                #expect(same, "a held lent frame's bars equal a copy's")
            }
        }
    }
}
