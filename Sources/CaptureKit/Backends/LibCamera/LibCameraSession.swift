internal import CLibCamera

/// One acquired, configured camera (the shim's `ck_lc_session`) and the frames it lends: a
/// completed request's buffer goes out by reference and its request is queued again when the
/// last consumer lets go (``takeBack(_:)``). Stopping releases the camera at once (another
/// process may take it); the buffers stay mapped until the session and every frame it lent
/// are gone.
final class LibCameraSession: StorageLender, @unchecked Sendable {
    // Unchecked Sendable: the shim's session is thread-safe for requeue, set and the queued
    // count; wait runs on the stream's thread only.
    private let handle: OpaquePointer
    let cameraID: String
    let configured: ck_lc_configured

    /// Acquires camera `id` and configures one stream of `role` at `format`.
    init(id: String, role: Int32, format: CaptureDevice.Format) throws(CaptureError) {
        cameraID = id
        var opened: OpaquePointer?
        try LibCamera.check(LibCamera.api.open(id, &opened), "Camera::acquire", id: id)
        guard let opened else { throw LibCamera.error(ENODEV, "Camera::acquire", id: id) }
        handle = opened
        guard let pixelFormat = format.pixelFormat else {
            LibCamera.api.close(opened)
            throw CaptureError(.unsupportedFormat, "\(format) is not a libcamera format", deviceID: LibCameraBackend.uniqueID(for: id))
        }
        var result = ck_lc_configured()
        var status: Int32 = -EINVAL
        // The first DRM format of that layout the camera takes.
        for drm in LibCameraFormats.drmFormats(for: pixelFormat) {
            status = LibCamera.api.configure(opened, role, drm, UInt32(format.width), UInt32(format.height), &result)
            if status == 0, result.fourcc == drm { break }
        }
        do {
            try LibCamera.check(status, "Camera::configure", id: id)
        } catch {
            LibCamera.api.close(opened)
            throw error
        }
        configured = result
    }

    deinit { LibCamera.api.close(handle) }

    /// Starts capturing every `frameDuration` (when the camera takes frame durations).
    func start(frameDuration: MediaTime) throws(CaptureError) {
        let microseconds = frameDuration.isNumeric ? Int64((frameDuration.seconds * 1_000_000).rounded()) : 0
        try LibCamera.check(LibCamera.api.start_capture(handle, microseconds), "Camera::start", id: cameraID)
    }

    /// What waiting for the next frame gave.
    enum Wait {
        case frame(ck_lc_frame)
        case timeout
        case disconnected
        case stopped
    }

    /// Waits up to `milliseconds` for the next completed request.
    func next(milliseconds: Int32) -> Wait {
        var frame = ck_lc_frame()
        switch LibCamera.api.wait(handle, milliseconds, &frame) {
        case 1: return .frame(frame)
        case 0: return .timeout
        case -ENODEV: return .disconnected
        default: return .stopped
        }
    }

    /// Requests queued with the camera now.
    var queuedCount: Int { Int(LibCamera.api.queued_count(handle)) }

    /// Sets libcamera control `id` from the next request on.
    func set(_ id: UInt32, to value: Double) throws(CaptureError) {
        try LibCamera.check(LibCamera.api.set_control(handle, id, value), "ControlList::set", id: cameraID)
    }

    func takeBack(_ tag: Int) { LibCamera.api.requeue(handle, Int32(tag)) }

    /// Stops and releases the camera; lent frames stay readable. A camera that is `gone` is
    /// left running rather than stopped: libcamera 0.0.3 aborts the process when asked to stop
    /// a camera whose requests can no longer complete (see CLibCamera.cpp).
    func stop(gone: Bool = false) { LibCamera.api.stop(handle, gone ? 1 : 0) }
}
