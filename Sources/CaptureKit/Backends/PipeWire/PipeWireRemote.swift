import Foundation
import Glibc

/// Which PipeWire connection the camera backend's listings, node monitor and streams make.
enum PipeWireRemote: Equatable, Sendable {
    /// The user's daemon at this socket (`$PIPEWIRE_REMOTE`, else the runtime folder's
    /// `pipewire-0`), which libpipewire finds itself.
    case daemon(String)
    /// Connections the Camera portal opens for this application, a new one for each use: a
    /// PipeWire connection is one client, so a listing, the monitor and every stream each need
    /// their own.
    case portal

    /// The daemon libpipewire would connect to, nil when there is none to try
    /// (``PipeWireDaemonAddress``).
    static var userDaemon: PipeWireRemote? { PipeWireDaemonAddress.current().map(PipeWireRemote.daemon) }

    /// Calls `body` with the descriptor the shim connects through (-1: the daemon libpipewire
    /// finds itself). A portal connection is closed afterwards: the shim keeps its own copy.
    func connect<R>(_ body: (Int32) -> R) throws(CaptureError) -> R {
        switch self {
        case .daemon:
            return body(-1)
        case .portal:
            let fd = try CameraPortal.openPipeWireRemote()
            defer { close(fd) }
            return body(fd)
        }
    }
}
