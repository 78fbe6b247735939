import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// Cameras through the XDG desktop Camera portal: a real xdg-desktop-portal and permission
    /// store on a private session bus, WirePlumber applying the portal's permissions, and a test
    /// Access backend standing in for the desktop's dialog (Support/CameraPortalDaemons.swift).
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct CameraPortalTests {
        static let cameraID = "pipewire:portalcam"

        /// Runs `body` with the portal stack up and this process on the portal route.
        static func withPortal(_ body: (AudioDaemon) async throws -> Void) async throws {
            guard try AudioDaemons.requireTools(also: AudioDaemons.portalTools) else { return }
            try await AudioDaemons.withPipeWire(portal: true) { daemon in
                CaptureDevice.cameraRoute = .portal
                defer { CaptureDevice.cameraRoute = .direct }
                try await body(daemon)
            }
        }

        /// Runs a session on `camera` in its active format until a data output got `count` frames
        /// (a failure after 30 s), and returns what it recorded.
        static func frames(from camera: CaptureDevice, count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SampleRecorder {
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(forCount: count, timeout: .seconds(30)), sourceLocation: sourceLocation)
            try await session.stop()
            return recorder
        }

        static var listedPipeWireCameras: [String] {
            CaptureDevice.allDevices.map(\.uniqueID).filter { $0.hasPrefix("pipewire:") }
        }

        /// Access granted at the prompt: the portal's camera with its formats, and frames at the
        /// format the session pinned, captured through the portal's PipeWire connection.
        @Test func grantedAccessGivesThePortalsCameraAndItsFrames() async throws {
            try await Self.withPortal { daemon in
                #expect(CaptureDevice.authorizationStatus(for: .video) == .notDetermined)
                #expect(Self.listedPipeWireCameras.isEmpty, "nothing through the portal before access: \(Self.listedPipeWireCameras)")
                #expect(try CameraPortal.isCameraPresent())

                #expect(await CaptureDevice.requestAccess(for: .video))
                #expect(daemon.portalPrompts.count == 1, "\(daemon.portalPrompts)")
                #expect(CaptureDevice.authorizationStatus(for: .video) == .authorized)
                #expect(try daemon.storedCameraPermissions().contains("yes"), "the desktop keeps the answer")
                let camera = try #require(CaptureDevice.device(uniqueID: Self.cameraID), "\(CaptureDevice.allDevices.map(\.uniqueID))")
                #expect(camera.localizedName == "Portal Camera")
                let format = try #require(camera.formats.first { $0.pixelFormat == .yuyv422 && $0.width == 320 && $0.height == 240 },
                                          "\(camera.formats)")

                try camera.lockForConfiguration()
                try camera.setActiveFormat(format)
                camera.unlockForConfiguration()
                let recorder = try await Self.frames(from: camera, count: 30)
                let received = recorder.samples.items.prefix(30)
                #expect(received.allSatisfy { $0.width == 320 && $0.height == 240 && $0.sample.pixelBuffer?.pixelFormat == .yuyv422 })
                // The camera is another client's stream (pipewiresink), which stops producing while
                // a consumer keeps its buffers: its frames are copies, so holding 30 starves nothing.
                #expect(received.allSatisfy { $0.sample.pixelBuffer?.storage.isLent == false })
                let stamps = received.map(\.sample.presentationTimeStamp)
                #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "timestamps rise")
                #expect(recorder.accounting.isComplete, "\(recorder.accounting)")

                // Asked again, the stored answer comes back without a prompt.
                #expect(await CaptureDevice.requestAccess(for: .video))
                #expect(daemon.portalPrompts.count == 1, "\(daemon.portalPrompts)")
            }
        }

        /// Access refused at the prompt: `.denied`, no camera, `.notAuthorized` — and the camera
        /// is not opened behind the portal's back (the V4L2 and daemon routes are off).
        @Test func deniedAccessIsNotAuthorized() async throws {
            try await Self.withPortal { daemon in
                try daemon.setPortalAnswer(granted: false)
                #expect(await !CaptureDevice.requestAccess(for: .video))
                #expect(CaptureDevice.authorizationStatus(for: .video) == .denied)
                #expect(daemon.portalPrompts.count == 1 && daemon.portalPrompts[0].contains("response=1"), "\(daemon.portalPrompts)")
                #expect(Self.listedPipeWireCameras.isEmpty, "\(Self.listedPipeWireCameras)")
                let error = await #expect(throws: CaptureError.self) { try await CaptureDevice.requestCameraAccess() }
                #expect(error?.code == .notAuthorized, "\(String(describing: error))")
                // The portal's own refusal of a connection, as a typed error.
                let refused = #expect(throws: CaptureError.self) { _ = try CameraPortal.openPipeWireRemote() }
                #expect(refused?.code == .notAuthorized, "\(String(describing: refused))")
                #expect(daemon.portalPrompts.count == 1, "the stored 'no' is not asked again: \(daemon.portalPrompts)")
            }
        }

        /// A decision the desktop kept from before (the permission store says yes): the cameras
        /// are there without asking, and the status says so.
        @Test func aStoredGrantNeedsNoPrompt() async throws {
            try await Self.withPortal { daemon in
                try daemon.storeCameraPermission("yes")
                #expect(Self.listedPipeWireCameras == [Self.cameraID], "\(CaptureDevice.allDevices.map(\.uniqueID))")
                #expect(CaptureDevice.authorizationStatus(for: .video) == .authorized)
                #expect(daemon.portalPrompts.isEmpty, "\(daemon.portalPrompts)")
            }
        }

        /// `capture --portal` asks before it looks: granted, it lists and captures the portal's
        /// camera; refused, it says so and exits as for an unavailable device (69).
        @Test func theCommandLineAsksThroughThePortal() async throws {
            try await Self.withPortal { daemon in
                let capture = try #require(MovieFiles.captureExecutable)
                var environment = daemon.environment
                environment["PIPEWIRE_REMOTE"] = daemon.pipeWireSocket
                let listing = try AudioDaemons.run(capture.path, ["devices", "--portal"], environment: environment)
                #expect(listing.contains("\tPortal Camera\t\(Self.cameraID)\t"), "\(listing)")
                let frames = try AudioDaemons.run(capture.path, ["frames", "--portal", "--device", Self.cameraID, "--count", "5", "--json"], environment: environment)
                let report = try #require(try JSONSerialization.jsonObject(with: Data(frames.utf8)) as? [String: Any], "\(frames)")
                #expect(report["frames"] as? Int == 5 && report["width"] as? Int == 320, "\(report)")
                #expect(daemon.portalPrompts.count == 1, "asked once, then the stored answer: \(daemon.portalPrompts)")

                try daemon.storeCameraPermission("no")
                let refused = #expect(throws: AudioDaemonFailure.self) {
                    try AudioDaemons.run(capture.path, ["devices", "--portal"], environment: environment)
                }
                #expect(refused?.description.contains("(69)") == true && refused?.description.contains("refused") == true, "\(String(describing: refused))")
            }
        }

        /// No portal on the bus: a clear `.connectionFailed`, nothing listed through it — and on
        /// the direct route the same camera is captured straight from the PipeWire daemon.
        @Test func withoutAPortalTheErrorSaysSoAndTheDirectRouteWorks() async throws {
            try await Self.withPortal { daemon in
                daemon.end("xdg-desktop-portal")
                let error = await #expect(throws: CaptureError.self) { try await CaptureDevice.requestCameraAccess() }
                #expect(error?.code == .connectionFailed && error?.message.contains("xdg-desktop-portal") == true, "\(String(describing: error))")
                #expect(await !CaptureDevice.requestAccess(for: .video))
                #expect(CaptureDevice.authorizationStatus(for: .video) == .notDetermined)
                #expect(Self.listedPipeWireCameras.isEmpty)

                CaptureDevice.cameraRoute = .direct
                #expect(CaptureDevice.authorizationStatus(for: .video) == .authorized)
                let camera = try #require(CaptureDevice.device(uniqueID: Self.cameraID), "\(CaptureDevice.allDevices.map(\.uniqueID))")
                _ = try await Self.frames(from: camera, count: 10)
            }
        }
    }
}
