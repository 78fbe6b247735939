import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// A real driver's camera lost and back mid-recording, two ways: vivid's "Disconnect" makes
    /// every call fail with ENODEV, as an unplugged USB camera does, and vivid connects again
    /// once the last handle of the old stream is closed — which CaptureKit does when it sees the
    /// loss; and a driver reload: vivid taken off its device (its nodes vanish under the open
    /// handle), the module unloaded and loaded again. And the loopback camera's producer
    /// restarted. The harness runs this suite in a process of its own, after the disconnect suite.
    @Suite(.serialized) struct ReplugTests {
        @Test func vividRecordingResumesAfterReplug() async throws {
            let node = VMEnvironment.vivid(1)
            try await recordThroughALoss(of: node, label: "replug", unplug: {
                try V4L2Ctl.set(node, ["disconnect": "1"])
            }, plugBack: {
                // vivid is back once CaptureKit closes the node: the loss itself is the cue.
                nil
            })
        }

        /// Unbound mid-recording, the module unloaded once CaptureKit let go of the node, and
        /// loaded again: the recording resumes by itself within a second of the nodes' return.
        @Test func vividRecordingResumesAfterDriverReload() async throws {
            let node = VMEnvironment.vivid(0)
            let driver = KernelDriver.vivid
            try await recordThroughALoss(of: node, label: "reload", unplug: {
                try driver.unbind()
                #expect(!FileManager.default.fileExists(atPath: node), "\(node) is still there after unbinding \(driver)")
            }, plugBack: {
                // Once CaptureKit has closed the node, nothing holds the module.
                #expect(await driver.waitUntilUnused(), "\(driver) is still held after the loss")
                try driver.unload()
                try driver.load()
                #expect(FileManager.default.fileExists(atPath: node), "\(node) did not come back with \(driver)")
                return MonotonicClock.nanoseconds()
            })
        }

        /// The loopback camera taken away and re-created, with a stall timeout: its producer
        /// quits (the node only goes silent: v4l2loopback reports no loss), CaptureKit lets go of
        /// the silent node after the timeout, the module is unloaded — possible only once nothing
        /// holds the node — and loaded again, the producer restarted; the recording resumes by
        /// itself within a second of the camera's return (with `exclusive_caps`, the node is a
        /// camera again only once its producer feeds it).
        @Test func loopbackCameraRecordingResumesAfterReplug() async throws {
            let node = VMEnvironment.loopbackNode
            let driver = KernelDriver.loopbackCamera
            try await recordThroughALoss(of: node, label: "loopback", format: ("MJPG", 640, 480), fps: 30, stallTimeout: .seconds(1), unplug: {
                try await Self.stopProducer()
            }, plugBack: {
                #expect(await driver.waitUntilUnused(), "\(driver) is still held after the stall")
                try await driver.unloadWhenUnused()
                #expect(!FileManager.default.fileExists(atPath: node), "\(node) is still there after unloading \(driver)")
                try driver.load()
                #expect(FileManager.default.fileExists(atPath: node), "\(node) did not come back with \(driver)")
                try Self.startProducer()
                return MonotonicClock.nanoseconds()
            })
        }

        private static func setStallTimeout(_ timeout: Duration?, on device: CaptureDevice) throws {
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            try device.setStallTimeout(timeout)
        }

        /// Stops the loopback camera's producer and waits until it has exited. SIGKILL: a
        /// producer this process started inherited its blocked signals, SIGTERM among them.
        private static func stopProducer() async throws {
            try FileFixtures.run("pkill", ["-KILL", "-x", "lbproducer"])
            #expect(await pollUntil { (try? FileFixtures.run("pgrep", ["-x", "lbproducer"])) == nil }, "the producer did not stop")
        }

        /// Starts the loopback camera's producer as the harness does (640x480 MJPEG at 30 fps),
        /// left running for the suites after this one.
        private static func startProducer() throws {
            let producer = Process()
            producer.executableURL = URL(fileURLWithPath: VMEnvironment.mjpegReference).deletingLastPathComponent().appendingPathComponent("lbproducer")
            producer.arguments = [VMEnvironment.loopbackNode, VMEnvironment.mjpegReference, "640", "480", "30"]
            try producer.run()
        }

        /// v4l2loopback's producer stops and starts again (a virtual-camera app restarted): the
        /// node only stalls — no loss, nothing dropped, the session keeps running — and the
        /// frames after the restart follow in the same recording, with the stall as a jump of
        /// their capture times. (The module itself cannot go while a reader holds the node:
        /// `rmmod` refuses, and v4l2loopback 0.12 has no other way to remove a device.)
        @Test func loopbackCameraStreamsOnWhenItsProducerRestarts() async throws {
            let device = try VMEnvironment.device(at: VMEnvironment.loopbackNode)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: "MJPG", width: 640, height: 480))
            let movie = CaptureMovieFileOutput()
            let frames = CaptureVideoDataOutput()
            frames.alwaysDiscardsLateVideoFrames = false
            let witness = SampleRecorder(label: "tests.vm.producer")
            witness.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            var settings = MovieOutputSettings()
            settings.videoCodec = .mjpeg
            movie.setOutputSettings(settings, for: try #require(movie.connections.first))
            let events = EventRecorder(session)
            let url = MovieFiles.path("loopback-producer", "mov")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await witness.samples.wait(forCount: 10, timeout: .seconds(30)), "frames before the producer stopped")

            try await Self.stopProducer()
            let stopped = MonotonicClock.nanoseconds()
            try await Task.sleep(for: .seconds(1))   // the stall itself, not a synchronisation
            try Self.startProducer()
            let restarted = MonotonicClock.nanoseconds()
            #expect(await witness.waitUntilCaptured(10, of: device.activeVideoMinFrameDuration, after: restarted) != nil,
                    "no frames after the producer restarted")
            let recorded = await movie.finishRecording()
            try await session.stop()

            #expect(!events.events.items.contains { if case .wasInterrupted = $0 { true } else { false } }, "\(events.events.items)")
            let accounting = witness.accounting
            #expect(accounting.isComplete, "\(accounting)")
            let times = witness.samples.items.map { $0.sample.presentationTimeStamp.nanoseconds ?? 0 }
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
            let before = times.filter { $0 < stopped }, after = times.filter { $0 >= restarted }
            #expect(!before.isEmpty && !after.isEmpty && after[0] - (before.last ?? 0) >= 1_000_000_000,
                    "the stall is not a jump of at least a second: \(before.suffix(2)) then \(after.prefix(2))")
            #expect(recorded.error == nil, "\(String(describing: recorded.error))")
            let packets = try ProbedMovie.videoTimestamps(url.path)
            #expect(packets.count == recorded.videoFrameCount)
            let stall = zip(packets, packets.dropFirst()).map { $1 - $0 }.max() ?? 0
            #expect(stall >= 1, "the file shows no stall between its packets: longest step \(stall) s")
        }

        /// Records 25 fps from `node` into one file (`.continueRecording`), `unplug`s the camera,
        /// waits for the interruption, has `plugBack` bring it back (it returns when the camera
        /// was back, or nil when the loss is the cue), and checks that the session resumed by
        /// itself (within a second of the return), that the frames after it run on in number
        /// and time, every one accounted for, and that the file holds both sides of the gap.
        private func recordThroughALoss(of node: String, label: String,
                                        format: (fourCC: String, width: Int, height: Int) = ("YUYV", 320, 180), fps: Int32 = 25,
                                        stallTimeout: Duration? = nil, unplug: () async throws -> Void,
                                        plugBack: () async throws -> Int64?) async throws {
            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: format.fourCC, width: format.width, height: format.height), fps: fps)
            try Self.setStallTimeout(stallTimeout, on: device)
            // The device is the same object for every test that finds it: put the default back.
            defer { try? Self.setStallTimeout(nil, on: device) }
            let movie = CaptureMovieFileOutput()
            movie.interruptionBehavior = .continueRecording
            // The witness keeps copies, never the driver's buffers: holding those would keep the
            // old node open, and the camera comes back only once it is closed. (MJPEG frames are
            // copied out of the driver's buffers anyway; decoding them here would be slow.)
            let frames = CaptureVideoDataOutput()
            frames.alwaysDiscardsLateVideoFrames = false
            if format.fourCC != "MJPG" { frames.videoSettings = VideoTarget(pixelFormat: .bgra) }
            let witness = SampleRecorder(label: "tests.vm.\(label)")
            witness.attach(to: frames)
            let session = try VMCapture.session(device, outputs: [movie, frames])
            if format.fourCC == "MJPG" {
                // The camera's JPEGs as they are: encoding them again would be slow in the VM.
                var settings = MovieOutputSettings()
                settings.videoCodec = .mjpeg
                movie.setOutputSettings(settings, for: try #require(movie.connections.first))
            }
            let events = EventRecorder(session)
            let url = MovieFiles.path("replug-\(label)", "mkv")
            defer { try? FileManager.default.removeItem(at: url) }
            try await session.start()
            defer { try? session.stopRunning() }
            try movie.startRecording(to: url)
            #expect(await witness.samples.wait(forCount: 25, timeout: .seconds(30)), "frames before the unplug")

            try await unplug()
            #expect(await events.wait(for: .wasInterrupted(.videoDeviceNotAvailable(deviceID: device.uniqueID)), timeout: .seconds(20)),
                    "events: \(events.events.items)")
            let lost = MonotonicClock.nanoseconds()
            let lastBefore = try #require(witness.samples.items.last)
            let back = try await plugBack()
            #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(20)), "events: \(events.events.items)")
            let ended = MonotonicClock.nanoseconds()
            print("vm \(label): interruption ended \(Double(ended - lost) / 1e6) ms after the loss"
                  + (back.map { ", \(Double(ended - $0) / 1e6) ms after the camera's return" } ?? ""))
            if let back { #expect(ended - back < 1_000_000_000, "resumed \(Double(ended - back) / 1e9) s after the camera came back") }
            let countAtReturn = witness.samples.count
            #expect(await witness.samples.wait(forCount: countAtReturn + 25, timeout: .seconds(30)), "frames after the return")
            let recorded = await movie.finishRecording()
            try await session.stop()

            // Frames after the return: later, numbered on, every one accounted for.
            let firstAfter = try #require(witness.samples.items.first { $0.sequenceNumber > lastBefore.sequenceNumber })
            #expect(firstAfter.sample.presentationTimeStamp > lastBefore.sample.presentationTimeStamp)
            let accounting = witness.accounting
            #expect(accounting.isComplete, "\(accounting)")
            let times = witness.samples.items.map(\.sample.presentationTimeStamp)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
            // One file, playable, with the frames from before and after the gap.
            let (before, after) = try checkRecordingAcrossAGap(url, recorded)
            #expect(before >= 1 && after >= 1, "frames on both sides of the gap: \(before) and \(after)")
            // 25 frames each side reached the witness; a live recording whose encoder falls
            // behind (the VM is emulated, the host may be busy) drops frames and counts them.
            #expect((before >= 10 && after >= 10) || recorded.droppedSampleCount > 0,
                    "frames missing from the file are reported dropped: \(before) and \(after), \(recorded)")
        }
    }
}
