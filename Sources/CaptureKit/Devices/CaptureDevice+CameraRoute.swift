import Foundation
import Synchronization

extension CaptureDevice {
    /// How this process reaches cameras.
    public enum CameraRoute: String, Sendable, Hashable, CaseIterable {
        /// Cameras are opened directly: V4L2 nodes (`/dev/video*`) and the camera nodes of the
        /// user's PipeWire daemon.
        case direct
        /// Cameras come only through the XDG desktop Camera portal
        /// (`org.freedesktop.portal.Camera`), as a sandboxed (Flatpak) application must reach
        /// them: the desktop asks the user once, then hands out a PipeWire connection that shows
        /// the cameras this application may use, as `pipewire:<node name>` devices.
        case portal
    }

    private static let cameraRouteSetting = Mutex<CameraRoute?>(nil)

    /// How this process reaches cameras: ``CameraRoute/portal`` inside a Flatpak sandbox (when
    /// `/.flatpak-info` exists) or when `CAPTUREKIT_CAMERA_PORTAL=1`, ``CameraRoute/direct``
    /// otherwise. Set it before discovering devices; devices of the other route are no longer
    /// listed from then on.
    public static var cameraRoute: CameraRoute {
        get {
            cameraRouteSetting.withLock { setting in
                if let setting { return setting }
                let environment = ProcessInfo.processInfo.environment["CAPTUREKIT_CAMERA_PORTAL"]
                let sandboxed = FileManager.default.fileExists(atPath: "/.flatpak-info")
                let route: CameraRoute = environment == "1" || (sandboxed && environment != "0") ? .portal : .direct
                setting = route
                return route
            }
        }
        set { cameraRouteSetting.withLock { $0 = newValue } }
    }
}
