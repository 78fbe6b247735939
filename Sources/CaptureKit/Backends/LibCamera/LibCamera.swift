internal import CLibCamera
import Foundation

/// The process's libcamera: its one `CameraManager` (libcamera allows one per process), started
/// on first use — and only on a machine with a media controller device, since every libcamera
/// pipeline handler matches one; elsewhere nothing is loaded or started.
///
/// Every shim call that can fail goes through ``check(_:_:id:)``, which turns libcamera's
/// negative errno into a typed error naming the operation.
enum LibCamera {
    /// Whether libcamera's camera manager runs in this process (started now if it can be).
    static var isAvailable: Bool { started }

    private static let started: Bool = {
        guard hasMediaDevices else { return false }
        if let failure = loadPlugin() {
            CaptureLog.emit(.warning, "capturekit", "libcamera's cameras are not listed: cannot load libCaptureKitLibCamera.so (\(failure))")
            return false
        }
        return api.start() == 0
    }()

    /// Loads the CaptureKitLibCamera library (once): nil when it is loaded, else why not.
    static func loadPlugin() -> String? {
        var why = [CChar](repeating: 0, count: 512)
        guard ck_lc_load(&why, why.count) != 0 else { return nil }
        return String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libcamera's functions: the plugin's once loaded, before that (or without it) stand-ins
    /// that list no camera.
    static var api: ck_lc_api { ck_lc_functions().pointee }

    /// Whether any `/dev/media*` node exists.
    static var hasMediaDevices: Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/dev") else { return false }
        return entries.contains { $0.hasPrefix("media") }
    }

    /// The cameras libcamera lists now.
    static func cameras() -> [ck_lc_camera_info] {
        guard isAvailable else { return [] }
        var capacity = 8
        while true {
            var infos = [ck_lc_camera_info](repeating: ck_lc_camera_info(), count: capacity)
            let count = Int(LibCamera.api.cameras(&infos, Int32(capacity)))
            if count <= capacity { return Array(infos.prefix(count)) }
            capacity = count
        }
    }

    /// Reads a C string out of a fixed-size char tuple.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Throws the typed error a failed libcamera call (`status` < 0, a negative errno) means.
    @discardableResult
    static func check(_ status: Int32, _ operation: String, id: String) throws(CaptureError) -> Int32 {
        guard status < 0 else { return status }
        throw error(-status, operation, id: id)
    }

    /// The error errno `code` means for `operation` on camera `id`.
    static func error(_ code: Int32, _ operation: String, id: String) -> CaptureError {
        let deviceID = LibCameraBackend.uniqueID(for: id)
        switch code {
        case EBUSY:
            let holder = LibCameraHolders.holder(of: id).map { " by pid \($0.pid) (\($0.name))" } ?? ""
            return CaptureError(.deviceBusy, "libcamera camera \(id) is in use\(holder); close the other camera application",
                                errno: code, operation: operation, deviceID: deviceID)
        case ENODEV, ENOENT, ENXIO:
            return CaptureError(.deviceDisconnected, "libcamera camera \(id) is gone (unplugged, or its driver unloaded)",
                                errno: code, operation: operation, deviceID: deviceID)
        case EACCES, EPERM:
            return CaptureError(.notAuthorized, "no permission to use libcamera camera \(id): add your user to the 'video' group",
                                errno: code, operation: operation, deviceID: deviceID)
        case EINVAL:
            return CaptureError(.unsupportedFormat, "libcamera camera \(id) refused the configuration (\(operation))",
                                errno: code, operation: operation, deviceID: deviceID)
        default:
            return CaptureError(.systemCallFailed, "\(operation) on libcamera camera \(id) failed: \(String(cString: strerror(code)))",
                                errno: code, operation: operation, deviceID: deviceID)
        }
    }
}
