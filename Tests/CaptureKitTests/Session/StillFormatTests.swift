import Dispatch
import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The photo's format switch (`streamingStillFormat`): two steps on the session's control
    /// queue with the wait for the photo's frame between them, so the session stays responsive
    /// while a larger photo waits.
    @Suite(.serialized)
    struct StillFormatTests {
        /// Runs `streamingStillFormat` to `format` on a thread of its own, its body held until
        /// `release` is signalled; returns once the body runs, with a semaphore that is
        /// signalled when the call has returned (its error, if any, in `failure`).
        private static func holdSwitch(_ session: CaptureSession, _ camera: CaptureDevice, to format: CaptureDevice.Format,
                                       release: DispatchSemaphore) -> (returned: DispatchSemaphore, failure: Recorder<CaptureError>) {
            let inBody = DispatchSemaphore(value: 0)
            let returned = DispatchSemaphore(value: 0)
            let failure = Recorder<CaptureError>()
            Thread.detachNewThread {
                do throws(CaptureError) {
                    try session.streamingStillFormat(format, on: camera) {
                        inBody.signal()
                        release.wait()
                    }
                } catch {
                    failure.append(error)
                    inBody.signal()
                }
                returned.signal()
            }
            inBody.wait()
            return (returned, failure)
        }

        private static func running(_ label: String) async throws -> (CaptureSession, CaptureDevice) {
            let camera = try makePhotoCamera(label, sizes: [(320, 240), (640, 480), (1280, 720)])
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [CaptureVideoDataOutput()])
            try camera.lockForConfiguration()
            try camera.setActiveFormat(try #require(camera.formats.first { $0.width == 320 }))
            camera.unlockForConfiguration()
            try await session.start()
            return (session, camera)
        }

        @Test(.timeLimit(.minutes(2)))
        func configurationCallsGoOnWhileThePhotosFrameIsAwaitedAndTheFormatComesBack() async throws {
            let (session, camera) = try await Self.running("still responsive")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            defer { try? session.stopRunning() }
            let large = try #require(camera.formats.first { $0.width == 1280 })
            let release = DispatchSemaphore(value: 0)
            let (returned, failure) = Self.holdSwitch(session, camera, to: large, release: release)
            #expect(failure.items.isEmpty, "\(failure.items)")
            #expect(camera.activeFormat.width == 1280, "the device streams the photo's format while the frame is awaited")

            // While the switch's body still waits, the control queue answers. (With the switch
            // held as one step, this commit would wait for the body, which waits for the commit.)
            let committed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                session.beginConfiguration()
                try? session.commitConfiguration()
                committed.signal()
            }
            let answered = committed.wait(timeout: .now() + 30) == .success
            release.signal()
            returned.wait()
            #expect(answered, "a configuration call waited behind the photo")
            #expect(camera.activeFormat.width == 320, "the streaming format is back")
            #expect(session.state == .running)
        }

        @Test(.timeLimit(.minutes(2)))
        func aFormatTheAppChoseMeanwhileStays() async throws {
            let (session, camera) = try await Self.running("app wins")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            defer { try? session.stopRunning() }
            let large = try #require(camera.formats.first { $0.width == 1280 })
            let chosen = try #require(camera.formats.first { $0.width == 640 })
            let release = DispatchSemaphore(value: 0)
            let (returned, _) = Self.holdSwitch(session, camera, to: large, release: release)
            try camera.lockForConfiguration()
            try camera.setActiveFormat(chosen)
            camera.unlockForConfiguration()
            release.signal()
            returned.wait()
            #expect(camera.activeFormat.width == 640, "the switch does not undo the app's own choice")
        }

        @Test(.timeLimit(.minutes(2)))
        func aSessionStoppedMeanwhileGetsItsFormatBackForTheNextStart() async throws {
            let (session, camera) = try await Self.running("stopped meanwhile")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let large = try #require(camera.formats.first { $0.width == 1280 })
            let release = DispatchSemaphore(value: 0)
            let (returned, failure) = Self.holdSwitch(session, camera, to: large, release: release)
            try session.stopRunning()
            release.signal()
            returned.wait()
            #expect(failure.items.isEmpty)
            #expect(camera.activeFormat.width == 320)
            #expect(session.state == .idle)
            try session.startRunning()
            #expect(camera.activeFormat.width == 320)
            try session.stopRunning()
        }

        @Test func theSwitchNeedsARunningSessionWithTheDevice() async throws {
            let camera = try makePhotoCamera("not running", sizes: [(320, 240), (1280, 720)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [CaptureVideoDataOutput()])
            let large = try #require(camera.formats.first { $0.width == 1280 })
            var ran = false
            let error = #expect(throws: CaptureError.self) { try session.streamingStillFormat(large, on: camera) { ran = true } }
            #expect(error?.code == .invalidState)
            #expect(!ran && camera.activeFormat.width != 1280)
        }
    }
}
