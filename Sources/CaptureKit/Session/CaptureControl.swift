import Dispatch
import Synchronization

// The Camera Control API (iPhone 16's camera button): controls a session shows on the
// hardware control. No Linux machine has one, so sessions support no controls
// (`supportsControls` is false, `maxControlsCount` 0) and these types exist so that code written
// for iOS compiles; a control can be made but never added.

/// A control shown on a camera button (`AVCaptureControl`).
open class CaptureControl: @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (open), so unverifiable; its state is immutable or behind a lock.
    private let enabled = Mutex(true)

    /// A control.
    public init() {}

    /// Whether the control responds (`isEnabled`).
    public var isEnabled: Bool {
        get { enabled.withLock { $0 } }
        set { enabled.withLock { $0 = newValue } }
    }
}

/// A control that picks a value in a range (`AVCaptureSlider`).
open class CaptureSlider: CaptureControl, @unchecked Sendable {
    // Unchecked Sendable: a subclass of CaptureControl; its state is immutable or behind a lock.
    /// What it shows.
    public let localizedTitle: String
    /// The SF Symbol it shows on iOS.
    public let symbolName: String
    /// Its range.
    public let range: ClosedRange<Float>
    private let current = Mutex<Float>(0)

    /// A slider over `range`.
    public init(_ localizedTitle: String, symbolName: String, in range: ClosedRange<Float>) {
        self.localizedTitle = localizedTitle
        self.symbolName = symbolName
        self.range = range
        current.withLock { $0 = range.lowerBound }
        super.init()
    }

    /// Its value (`value`).
    public var value: Float {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = min(range.upperBound, max(range.lowerBound, newValue)) } }
    }

    /// What to run when the user moves it (`setActionQueue(_:action:)`); never called here.
    public func setActionQueue(_ queue: DispatchQueue, action: @escaping @Sendable (Float) -> Void) {}
}

/// A control that picks one of several named values (`AVCaptureIndexPicker`).
open class CaptureIndexPicker: CaptureControl, @unchecked Sendable {
    // Unchecked Sendable: a subclass of CaptureControl; its state is immutable or behind a lock.
    /// What it shows.
    public let localizedTitle: String
    /// The SF Symbol it shows on iOS.
    public let symbolName: String
    /// The names of its values.
    public let localizedIndexTitles: [String]
    private let index = Mutex(0)

    /// A picker over `localizedIndexTitles`.
    public init(_ localizedTitle: String, symbolName: String, localizedIndexTitles: [String]) {
        self.localizedTitle = localizedTitle
        self.symbolName = symbolName
        self.localizedIndexTitles = localizedIndexTitles
        super.init()
    }

    /// The chosen value (`selectedIndex`).
    public var selectedIndex: Int {
        get { index.withLock { $0 } }
        set { index.withLock { $0 = newValue } }
    }

    /// What to run when the user picks a value (`setActionQueue(_:action:)`); never called here.
    public func setActionQueue(_ queue: DispatchQueue, action: @escaping @Sendable (Int) -> Void) {}
}

/// The system's zoom control for a camera (`AVCaptureSystemZoomSlider`).
public final class CaptureSystemZoomSlider: CaptureControl, @unchecked Sendable {
    // Unchecked Sendable: a subclass of CaptureControl; its state is immutable or behind a lock.
    /// The camera it would zoom.
    public let device: CaptureDevice

    /// A zoom control for `device`; `action` would hear the zoom factor chosen.
    public init(device: CaptureDevice, action: (@Sendable (Double) -> Void)? = nil) {
        self.device = device
        super.init()
    }
}

/// The system's exposure-bias control for a camera (`AVCaptureSystemExposureBiasSlider`).
public final class CaptureSystemExposureBiasSlider: CaptureControl, @unchecked Sendable {
    // Unchecked Sendable: a subclass of CaptureControl; its state is immutable or behind a lock.
    /// The camera it would adjust.
    public let device: CaptureDevice

    /// An exposure-bias control for `device`; `action` would hear the bias chosen.
    public init(device: CaptureDevice, action: (@Sendable (Float) -> Void)? = nil) {
        self.device = device
        super.init()
    }
}

/// Hears when a session's controls appear on the camera button (`AVCaptureSessionControlsDelegate`);
/// never called here, since no session supports controls.
public protocol CaptureSessionControlsDelegate: AnyObject, Sendable {
    /// The controls are showing.
    func sessionControlsDidBecomeActive(_ session: CaptureSession)
    /// The controls are about to fill the button's display.
    func sessionControlsWillEnterFullscreenAppearance(_ session: CaptureSession)
    /// The controls are about to shrink back.
    func sessionControlsWillExitFullscreenAppearance(_ session: CaptureSession)
    /// The controls are gone.
    func sessionControlsDidBecomeInactive(_ session: CaptureSession)
}

extension CaptureSessionControlsDelegate {
    public func sessionControlsDidBecomeActive(_ session: CaptureSession) {}
    public func sessionControlsWillEnterFullscreenAppearance(_ session: CaptureSession) {}
    public func sessionControlsWillExitFullscreenAppearance(_ session: CaptureSession) {}
    public func sessionControlsDidBecomeInactive(_ session: CaptureSession) {}
}

extension CaptureSession {
    /// Whether the session can show controls on a camera button (`supportsControls`): false.
    public var supportsControls: Bool { false }
    /// How many controls the session may have (`maxControlsCount`): 0.
    public var maxControlsCount: Int { 0 }
    /// The session's controls (`controls`): none.
    public var controls: [CaptureControl] { [] }
    /// Whether `control` can be added (`canAddControl(_:)`): false.
    public func canAddControl(_ control: CaptureControl) -> Bool { false }
    /// Adds a control (`addControl(_:)`): refused, with a warning through ``CaptureLog``.
    public func addControl(_ control: CaptureControl) {
        CaptureLog.emit(.warning, "capturekit", "sessions support no camera-button controls here (supportsControls is false)")
    }
    /// Removes a control (`removeControl(_:)`): there are none.
    public func removeControl(_ control: CaptureControl) {}
    /// Sets who hears about the controls (`setControlsDelegate(_:queue:)`); never called.
    public func setControlsDelegate(_ delegate: (any CaptureSessionControlsDelegate)?, queue: DispatchQueue?) {}
}
