import Testing
@testable import CaptureKit

/// Connections made at commit: which outputs get one, and their orientation and mirroring.
/// No session runs here.
@Suite("CaptureConnection")
struct CaptureConnectionTests {
    @Test func connectionsFollowMediaTypes() throws {
        let camera = try makeTestCamera("connections")
        let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("connections mic")))
        defer {
            CaptureDevice.removeVirtualDevice(camera)
            CaptureDevice.removeVirtualDevice(microphone)
        }
        let session = CaptureSession()
        let video = CaptureVideoDataOutput()
        let audio = CaptureAudioDataOutput()
        session.beginConfiguration()
        let cameraInput = try CaptureDeviceInput(device: camera)
        try session.addInput(cameraInput)
        try session.addOutput(video)
        try session.addOutput(audio)
        try session.commitConfiguration()

        #expect(cameraInput.ports.map(\.mediaType) == [.video])
        #expect(cameraInput.ports.first?.sourceDeviceID == camera.uniqueID)
        #expect(session.connections.count == 1, "no microphone yet: the audio output has no connection")
        #expect(audio.connections.isEmpty)
        let videoConnection = try #require(video.connection(with: .video))
        #expect(video.connection(with: .audio) == nil)
        #expect(videoConnection.mediaType == .video)
        #expect(videoConnection.output === video)
        #expect(videoConnection.isEnabled)
        #expect(!videoConnection.isActive, "not running")

        try session.addInput(CaptureDeviceInput(device: microphone))
        #expect(session.connections.count == 2)
        let audioConnection = try #require(audio.connection(with: .audio))
        #expect(audioConnection.mediaType == .audio)
        #expect(audioConnection.inputPorts.first?.sourceDeviceID == microphone.uniqueID)
        #expect(video.connection(with: .video) === videoConnection, "an unchanged connection survives a commit")

        session.removeOutput(video)
        #expect(video.connections.isEmpty)
        #expect(session.connections == [audioConnection])
    }

    @Test func orientationAndRotation() throws {
        let camera = try makeTestCamera("orientation")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let output = CaptureVideoDataOutput()
        _ = try makeSession(camera: camera, outputs: [output])
        let connection = try #require(output.connection(with: .video))
        #expect(connection.isVideoOrientationSupported)
        #expect(connection.videoOrientation == .landscapeRight)
        #expect(connection.videoRotationAngle == 0)
        for (angle, orientation) in [(90.0, CaptureConnection.VideoOrientation.portrait), (180, .landscapeLeft),
                                     (270, .portraitUpsideDown), (0, .landscapeRight)] {
            #expect(connection.isVideoRotationAngleSupported(angle))
            try connection.setVideoRotationAngle(angle)
            #expect(connection.videoOrientation == orientation)
            #expect(orientation.rotationAngle == angle)
        }
        connection.videoOrientation = .portraitUpsideDown
        #expect(connection.videoRotationAngle == 270)
        #expect(!connection.isVideoRotationAngleSupported(45))
        let error = #expect(throws: CaptureError.self) { try connection.setVideoRotationAngle(45) }
        #expect(error?.code == .invalidArgument)
        #expect(connection.videoRotationAngle == 270)
        #expect(CaptureConnection.VideoOrientation(rotationAngle: 30) == nil)
    }

    @Test func mirroringAndStabilization() throws {
        let front = try makeTestCamera("front mirror") { $0.position = .front }
        let back = try makeTestCamera("back mirror") { $0.position = .back }
        defer {
            CaptureDevice.removeVirtualDevice(front)
            CaptureDevice.removeVirtualDevice(back)
        }
        let frontOutput = CaptureVideoDataOutput()
        let backOutput = CaptureVideoDataOutput()
        _ = try makeSession(camera: front, outputs: [frontOutput])
        _ = try makeSession(camera: back, outputs: [backOutput])
        let frontConnection = try #require(frontOutput.connection(with: .video))
        let backConnection = try #require(backOutput.connection(with: .video))
        #expect(frontConnection.automaticallyAdjustsVideoMirroring)
        #expect(frontConnection.isVideoMirrored, "front cameras are mirrored automatically")
        #expect(!backConnection.isVideoMirrored)

        frontConnection.isVideoMirrored = false
        #expect(!frontConnection.automaticallyAdjustsVideoMirroring, "setting mirroring turns the automatic off")
        #expect(!frontConnection.isVideoMirrored)
        backConnection.isVideoMirrored = true
        #expect(backConnection.isVideoMirrored)
        backConnection.automaticallyAdjustsVideoMirroring = true
        #expect(!backConnection.isVideoMirrored)

        #expect(!frontConnection.isVideoStabilizationSupported)
        frontConnection.preferredVideoStabilizationMode = .cinematic
        #expect(frontConnection.preferredVideoStabilizationMode == .cinematic)
        #expect(frontConnection.activeVideoStabilizationMode == .off)
    }

    @Test func audioConnectionHasNoVideoFeatures() throws {
        let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("audio features")))
        defer { CaptureDevice.removeVirtualDevice(microphone) }
        let session = CaptureSession()
        let output = CaptureAudioDataOutput()
        try session.addInput(CaptureDeviceInput(device: microphone))
        try session.addOutput(output)
        let connection = try #require(output.connection(with: .audio))
        #expect(!connection.isVideoOrientationSupported)
        #expect(!connection.isVideoMirroringSupported)
        #expect(!connection.isVideoRotationAngleSupported(90))
        #expect(throws: CaptureError.self) { try connection.setVideoRotationAngle(90) }
        connection.isVideoMirrored = true
        #expect(!connection.isVideoMirrored, "audio cannot be mirrored")
    }
}
