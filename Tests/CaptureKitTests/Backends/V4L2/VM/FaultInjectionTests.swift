import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// vivid's other fault levers and a second process holding the camera, on the second vivid
    /// instance (the first one's state stays as the content tests expect it).
    @Suite struct FaultInjectionTests {
        private var node: String { VMEnvironment.vivid(1) }

        /// A buffer the driver marks V4L2_BUF_FLAG_ERROR is not delivered; it is reported.
        @Test func errorFlaggedBufferIsDroppedAndReported() async throws {
            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 30)
            let (session, recorder, _) = try await VMCapture.running(device)
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: 5, timeout: .seconds(30)))
            let dropsBefore = recorder.drops.items.reduce(0) { $0 + $1.count }
            let before = recorder.samples.count
            // The flag is set somewhere while v4l2-ctl runs (frames keep coming meanwhile); the
            // driver marks the next buffer it fills, within the few buffers queued after that.
            try V4L2Ctl.set(node, ["inject_v4l2_buf_flag_error": "1"])
            #expect(await recorder.samples.wait(forCount: recorder.samples.count + 10, timeout: .seconds(30)))
            try await session.stop()

            let sequences = recorder.samples.items.map(\.sequenceNumber)
            let after = Array(sequences[max(0, before - 1)...])
            let gaps = zip(after, after.dropFirst()).filter { $0.1 != $0.0 + 1 }
            #expect(!gaps.isEmpty, "the error-flagged buffer was delivered: sequences \(sequences), injected after \(before) frames")
            let drops = recorder.drops.items
            #expect(drops.reduce(0) { $0 + $1.count } > dropsBefore, "drops: \(drops)")
            #expect(drops.contains { $0.reason == .discontinuity }, "drops: \(drops)")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
        }

        /// A fatal streaming error (DQBUF fails with EIO until the stream restarts) stops the
        /// session with a runtime error instead of hanging or spinning.
        @Test func fatalStreamingErrorStopsTheSession() async throws {
            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 30)
            let (session, recorder, _) = try await VMCapture.running(device)
            defer { try? session.stopRunning() }
            // Registered after the start: only the events of the fault matter here.
            let events = EventRecorder(session)
            #expect(await recorder.samples.wait(forCount: 3, timeout: .seconds(30)))
            try V4L2Ctl.set(node, ["inject_fatal_streaming_error": "1"])
            #expect(await events.events.wait(timeout: .seconds(20)) { $0.contains { if case .runtimeError = $0 { true } else { false } } },
                    "events: \(events.events.items)")
            #expect(await events.wait(for: .didStopRunning, timeout: .seconds(20)), "events: \(events.events.items)")
            #expect(!session.isRunning)
        }

        /// Another process streaming from the camera: CaptureKit says who holds it.
        @Test func cameraHeldByAnotherProcessIsBusyWithItsPid() async throws {
            let device = try VMEnvironment.device(at: node)
            let format = try VMCapture.format(device, fourCC: "YUYV", width: 640, height: 480)
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = ["v4l2-ctl", "-d", node, "--set-fmt-video=width=320,height=180,pixelformat=YUYV",
                                "--stream-mmap=3", "--stream-count=100000"]
            // v4l2-ctl reports each frame with a '<' on its (unbuffered) standard error: once one
            // came, it owns the stream.
            let progress = Pipe()
            holder.standardOutput = FileHandle.nullDevice
            holder.standardError = progress
            try holder.run()
            let streaming = Recorder<Int>()
            let reader = Thread {
                while case let chunk = progress.fileHandleForReading.availableData, !chunk.isEmpty {
                    streaming.append(chunk.count { $0 == UInt8(ascii: "<") })
                }
            }
            reader.start()
            defer {
                kill(holder.processIdentifier, SIGKILL)
                holder.waitUntilExit()
            }
            try #require(await streaming.wait(timeout: .seconds(30)) { $0.reduce(0, +) > 0 }, "v4l2-ctl did not start streaming")

            do throws(CaptureError) {
                try VMCapture.configure(device, format)
                Issue.record("a format change on a camera another process streams from was accepted")
            } catch {
                #expect(error.code == .deviceBusy, "\(error)")
                #expect(error.message.contains("\(holder.processIdentifier)"), "the message should name pid \(holder.processIdentifier): \(error.message)")
            }
        }
    }
}
