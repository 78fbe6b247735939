import Foundation

// AVFoundation sets focus, exposure and format as properties and raises an exception for a
// value the device refuses. CaptureKit's throwing setters (`setFocusMode(_:)`…) say why; these
// properties call them, and since a property setter cannot throw, a refusal keeps the old value
// and is logged through CaptureLog. Code that checks `is…Supported` first, as it must on iOS,
// never sees one.
extension CaptureDevice {
    /// The focus mode (`focusMode`): the last one set, else continuous autofocus where the
    /// device has it and locked otherwise. Setting it calls ``setFocusMode(_:)``.
    public var focusMode: FocusMode {
        get { requested.withLock { $0.focusMode } ?? (isFocusModeSupported(.continuousAutoFocus) ? .continuousAutoFocus : .locked) }
        set { record("focusMode", \.focusMode, newValue) { () throws(CaptureError) in try setFocusMode(newValue) } }
    }

    /// The exposure mode (`exposureMode`): the last one set, else continuous auto exposure where
    /// the device has it and locked otherwise. Setting it calls ``setExposureMode(_:)``.
    public var exposureMode: ExposureMode {
        get { requested.withLock { $0.exposureMode } ?? (isExposureModeSupported(.continuousAutoExposure) ? .continuousAutoExposure : .locked) }
        set { record("exposureMode", \.exposureMode, newValue) { () throws(CaptureError) in try setExposureMode(newValue) } }
    }

    /// Where focus is aimed (`focusPointOfInterest`), (0, 0) top left to (1, 1) bottom right;
    /// (0.5, 0.5) until set. Setting it calls ``setFocusPointOfInterest(_:)``.
    public var focusPointOfInterest: CGPoint {
        get { requested.withLock { $0.focusPointOfInterest } }
        set {
            record("focusPointOfInterest", \.focusPointOfInterest, newValue) { () throws(CaptureError) in
                try setFocusPointOfInterest(NormalizedPoint(x: Double(newValue.x), y: Double(newValue.y)))
            }
        }
    }

    /// Where exposure is metered (`exposurePointOfInterest`); (0.5, 0.5) until set. Setting it
    /// calls ``setExposurePointOfInterest(_:)``.
    public var exposurePointOfInterest: CGPoint {
        get { requested.withLock { $0.exposurePointOfInterest } }
        set {
            record("exposurePointOfInterest", \.exposurePointOfInterest, newValue) { () throws(CaptureError) in
                try setExposurePointOfInterest(NormalizedPoint(x: Double(newValue.x), y: Double(newValue.y)))
            }
        }
    }

    /// Whether the device should post ``subjectAreaDidChangeNotification`` when the scene
    /// changes (`isSubjectAreaChangeMonitoringEnabled`). Kept as set; no Linux camera detects
    /// subject-area changes, so the notification is never posted.
    public var isSubjectAreaChangeMonitoringEnabled: Bool {
        get { requested.withLock { $0.monitorsSubjectArea } }
        set { requested.withLock { $0.monitorsSubjectArea = newValue } }
    }

    /// Posted when the scene in front of the camera changes a lot
    /// (`AVCaptureDevice.subjectAreaDidChangeNotification`); never posted on Linux.
    public static let subjectAreaDidChangeNotification = Notification.Name("CaptureDeviceSubjectAreaDidChange")

    /// Runs `apply` for the property `name` and, when it takes, keeps `value` for the getter.
    private func record<Value>(_ name: String, _ field: WritableKeyPath<RequestedDeviceSettings, Value>, _ value: Value,
                               _ apply: () throws(CaptureError) -> Void) {
        if applyingProperty(name, apply) { requested.withLock { $0[keyPath: field] = value } }
    }

    /// Runs a throwing setter for a property; logs a refusal. Returns whether it took.
    @discardableResult
    func applyingProperty(_ name: String, _ body: () throws(CaptureError) -> Void) -> Bool {
        do throws(CaptureError) {
            try body()
            return true
        } catch {
            CaptureLog.emit(.warning, "capturekit", "\(localizedName): \(name) was not changed: \(error.message)")
            return false
        }
    }
}
