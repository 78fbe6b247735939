import Testing
@testable import CaptureKit

/// The manual connection API (`addInputWithNoConnections`, `addOutputWithNoConnections`,
/// `addConnection`) and what a multi-camera session accepts that a single one refuses.
@Suite struct ManualConnectionTests {
    @Test func aSingleCameraSessionRefusesASecondCameraAndAMultiCamSessionTakesIt() throws {
        let first = try makeTestCamera("manual first"), second = try makeTestCamera("manual second")
        defer { for camera in [first, second] { CaptureDevice.removeVirtualDevice(camera) } }
        let single = CaptureSession()
        try single.addInput(CaptureDeviceInput(device: first))
        #expect(throws: CaptureError.self) { try single.addInput(CaptureDeviceInput(device: second)) }

        let multi = CaptureMultiCamSession()
        try multi.addInputWithNoConnections(CaptureDeviceInput(device: first))
        try multi.addInputWithNoConnections(CaptureDeviceInput(device: second))
        #expect(multi.inputs.count == 2)
        do {
            try multi.addInputWithNoConnections(CaptureDeviceInput(device: first))
            Issue.record("a camera was added twice")
        } catch { #expect(error.code == .cannotAddInput) }
        #expect(multi.sessionPreset == .inputPriority)
        #expect(!multi.canSetSessionPreset(.hd1280x720))
        do {
            try multi.setSessionPreset(.hd1280x720)
            Issue.record("a multi-camera session took a preset")
        } catch { #expect(error.code == .unsupportedPreset) }
    }

    @Test func anOutputAddedWithNoConnectionsTakesOnlyItsConnection() throws {
        let first = try makeTestCamera("manual a"), second = try makeTestCamera("manual b")
        defer { for camera in [first, second] { CaptureDevice.removeVirtualDevice(camera) } }
        let session = CaptureMultiCamSession()
        let a = try CaptureDeviceInput(device: first), b = try CaptureDeviceInput(device: second)
        let output = CaptureVideoDataOutput(), unconnected = CaptureVideoDataOutput()
        try session.configure {
            try session.addInputWithNoConnections(a)
            try session.addInputWithNoConnections(b)
            try session.addOutputWithNoConnections(output)
            try session.addOutputWithNoConnections(unconnected)
            try session.addConnection(CaptureConnection(inputPorts: [try #require(b.port(for: .video))], output: output))
        }
        #expect(output.connections.map(\.inputPorts.first?.sourceDeviceID) == [second.uniqueID])
        #expect(unconnected.connections.isEmpty)
        #expect(session.connections.count == 1)

        // A second video connection to the same output, and one to an output of no session.
        let twice = try CaptureConnection(inputPorts: [try #require(a.port(for: .video))], output: output)
        #expect(!session.canAddConnection(twice))
        do {
            try session.addConnection(twice)
            Issue.record("an output took two cameras")
        } catch { #expect(error.code == .cannotAddConnection) }
        let stranger = try CaptureConnection(inputPorts: [try #require(a.port(for: .video))], output: CaptureVideoDataOutput())
        do {
            try session.addConnection(stranger)
            Issue.record("a connection to an output outside the session was taken")
        } catch { #expect(error.code == .cannotAddConnection) }
        #expect(throws: CaptureError.self) { try CaptureConnection(inputPorts: [], output: output) }

        // Removing the connection's input removes the connection.
        session.removeInput(b)
        #expect(output.connections.isEmpty)
        #expect(session.connections.isEmpty)
    }

    @Test func anAudioConnectionToAVideoOutputIsRefused() throws {
        let microphone = try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("manual mic")))
        defer { CaptureDevice.removeVirtualDevice(microphone) }
        let session = CaptureMultiCamSession()
        let input = try CaptureDeviceInput(device: microphone)
        let output = CaptureVideoDataOutput()
        try session.addInputWithNoConnections(input)
        try session.addOutputWithNoConnections(output)
        let port = try #require(input.port(for: .audio))
        do {
            try session.addConnection(CaptureConnection(inputPorts: [port], output: output))
            Issue.record("a video output took sound")
        } catch { #expect(error.code == .cannotAddConnection) }
    }

    /// Without the manual API, a multi-camera session's outputs take the first camera, as a
    /// single session's do.
    @Test func outputsAddedWithConnectionsTakeTheFirstCamera() throws {
        let first = try makeTestCamera("implicit a"), second = try makeTestCamera("implicit b")
        defer { for camera in [first, second] { CaptureDevice.removeVirtualDevice(camera) } }
        let session = CaptureMultiCamSession()
        let output = CaptureVideoDataOutput()
        try session.configure {
            try session.addInput(CaptureDeviceInput(device: first))
            try session.addInput(CaptureDeviceInput(device: second))
            try session.addOutput(output)
        }
        #expect(output.connections.map(\.inputPorts.first?.sourceDeviceID) == [first.uniqueID])
    }
}
