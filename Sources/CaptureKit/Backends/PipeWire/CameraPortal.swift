internal import CSDBus
import Foundation

/// The XDG desktop Camera portal (`org.freedesktop.portal.Camera`), through which sandboxed
/// (Flatpak) applications reach cameras: `AccessCamera` asks the user once (the desktop keeps the
/// answer in its permission store), `OpenPipeWireRemote` hands out a PipeWire connection that
/// shows only the cameras this application may use. Calls go over the session bus through the
/// `CSDBus` shim (sd-bus); each opens and closes its own bus connection.
enum CameraPortal {
    /// How long a person may take to answer the portal's prompt.
    static let answerTimeout: Duration = .seconds(300)

    /// What the portal said to `AccessCamera`.
    enum Answer: Equatable {
        /// The application may use cameras.
        case granted
        /// The user (or a stored decision) refused.
        case denied
    }

    /// Wraps the `IsCameraPresent` property: whether the portal sees any camera at all.
    static func isCameraPresent() throws(CaptureError) -> Bool {
        var present: Int32 = 0
        var error = ck_portal_error()
        guard ck_portal_is_camera_present(&present, &error) == 0 else { throw failure(error) }
        return present != 0
    }

    /// Wraps `AccessCamera`: asks for camera access and waits for the answer (a prompt the
    /// first time, the stored decision after that). Blocks its thread.
    static func accessCamera(timeout: Duration = answerTimeout) throws(CaptureError) -> Answer {
        var response: UInt32 = 2
        var error = ck_portal_error()
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
        guard ck_portal_access_camera(milliseconds, &response, &error) == 0 else { throw failure(error) }
        // 0: granted; 1: the user said no; 2: the dialog ended some other way.
        return response == 0 ? .granted : .denied
    }

    /// Wraps `OpenPipeWireRemote`: a new PipeWire connection (a socket the caller owns) that shows
    /// only the cameras this application may use; `.notAuthorized` when access was not granted.
    static func openPipeWireRemote() throws(CaptureError) -> Int32 {
        var fd: Int32 = -1
        var error = ck_portal_error()
        guard ck_portal_open_pipewire_remote(&fd, &error) == 0 else { throw failure(error) }
        return fd
    }

    /// The typed error for what the shim reported.
    private static func failure(_ error: ck_portal_error) -> CaptureError {
        var error = error
        let name = withUnsafeBytes(of: &error.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let message = withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let (code, why) = classify(errorName: name, errno: -error.code)
        return CaptureError(code, "\(why) (\(message))", errno: -error.code, operation: "org.freedesktop.portal.Camera")
    }

    /// The error code and a sentence for a D-Bus error name or, without one, an errno.
    private static func classify(errorName: String, errno: Int32) -> (CaptureError.Code, String) {
        switch errorName {
        case "org.freedesktop.portal.Error.NotAllowed":
            return (.notAuthorized, "the Camera portal refused camera access to this application")
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return (.connectionFailed, "no desktop portal runs on the session bus (start xdg-desktop-portal)")
        case "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownMethod",
             "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownProperty",
             "org.freedesktop.DBus.Error.InvalidArgs":
            return (.notSupported, "the desktop portal offers no Camera interface (it needs PipeWire and an Access backend)")
        case "":
            if errno == ETIMEDOUT { return (.connectionFailed, "the Camera portal did not answer in time") }
            return (.connectionFailed, "the Camera portal cannot be reached")
        default:
            return (.connectionFailed, "the Camera portal failed")
        }
    }
}
