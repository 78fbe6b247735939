import Testing
@testable import CaptureKit

/// The Camera Control API compiles and refuses: no Linux machine has a camera button.
@Suite struct CameraControlTests {
    @Test func controlsAreRefusedAndNothingIsAdded() throws {
        let camera = try makeTestCamera("camera control")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        let zoom = CaptureSystemZoomSlider(device: camera) { _ in }
        let slider = CaptureSlider("Blur", symbolName: "camera.aperture", in: 0...1)
        slider.value = 2
        #expect(slider.value == 1)
        #expect(!session.supportsControls && session.maxControlsCount == 0)
        #expect(!session.canAddControl(zoom))
        session.addControl(zoom)
        #expect(session.controls.isEmpty)
    }
}
