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
        set {
            if applyingProperty("focusMode", { () throws(CaptureError) in try setFocusMode(newValue) }) {
                requested.withLock { $0.focusMode = newValue }
            }
        }
    }

    /// The exposure mode (`exposureMode`): the last one set, else continuous auto exposure where
    /// the device has it and locked otherwise. Setting it calls ``setExposureMode(_:)``.
    public var exposureMode: ExposureMode {
        get { requested.withLock { $0.exposureMode } ?? (isExposureModeSupported(.continuousAutoExposure) ? .continuousAutoExposure : .locked) }
        set {
            if applyingProperty("exposureMode", { () throws(CaptureError) in try setExposureMode(newValue) }) {
                requested.withLock { $0.exposureMode = newValue }
            }
        }
    }

    /// Where focus is aimed (`focusPointOfInterest`), (0, 0) top left to (1, 1) bottom right;
    /// (0.5, 0.5) until set. Setting it calls ``setFocusPointOfInterest(_:)``.
    public var focusPointOfInterest: CGPoint {
        get { requested.withLock { $0.focusPointOfInterest } }
        set {
            let point = NormalizedPoint(x: Double(newValue.x), y: Double(newValue.y))
            if applyingProperty("focusPointOfInterest", { () throws(CaptureError) in try setFocusPointOfInterest(point) }) {
                requested.withLock { $0.focusPointOfInterest = newValue }
            }
        }
    }

    /// Where exposure is metered (`exposurePointOfInterest`); (0.5, 0.5) until set. Setting it
    /// calls ``setExposurePointOfInterest(_:)``.
    public var exposurePointOfInterest: CGPoint {
        get { requested.withLock { $0.exposurePointOfInterest } }
        set {
            let point = NormalizedPoint(x: Double(newValue.x), y: Double(newValue.y))
            if applyingProperty("exposurePointOfInterest", { () throws(CaptureError) in try setExposurePointOfInterest(point) }) {
                requested.withLock { $0.exposurePointOfInterest = newValue }
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
