import Foundation

/// The values set through ``CaptureDevice``'s AVFoundation-style properties, for their getters.
struct RequestedDeviceSettings: Sendable {
    var focusMode: CaptureDevice.FocusMode?
    var exposureMode: CaptureDevice.ExposureMode?
    var focusPointOfInterest = CGPoint(x: 0.5, y: 0.5)
    var exposurePointOfInterest = CGPoint(x: 0.5, y: 0.5)
    var monitorsSubjectArea = false
}
