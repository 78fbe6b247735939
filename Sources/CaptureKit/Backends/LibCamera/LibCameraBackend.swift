internal import CLibCamera
import Synchronization

/// A libcamera camera as a device (`libcamera:<id>`): model and position from its properties,
/// formats from its video role's stream formats (plus sizes only its still role offers — the
/// sensor's full resolution — which a photo output's larger format switches to — and the raw
/// role's Bayer formats, the sensor's own samples for raw photos), its controls through
/// ``LibCameraControls``.
final class LibCameraBackend: DeviceBackend, CameraControlBackend, ConfigurableDeviceBackend {
    let descriptor: DeviceDescriptor
    /// libcamera's id of the camera.
    let cameraID: String
    let formats: [CaptureDevice.Format]
    /// Formats streamed with libcamera's still capture role rather than the video role.
    let stillFormats: Set<CaptureDevice.Format>
    let controls: LibCameraControls
    /// The camera's capture nodes as last seen: it is gone once one of them is, until libcamera
    /// lists the camera again (a driver bound again gives it new nodes).
    private let nodes: Mutex<[LibCameraNodes.Node]>

    /// The device ID of libcamera camera `id`.
    static func uniqueID(for id: String) -> String { "libcamera:\(id)" }

    init(_ info: ck_lc_camera_info) {
        let id = LibCamera.string(info.id)
        cameraID = id
        let model = LibCamera.string(info.model)
        let position: CaptureDevice.Position = switch info.location {
        case 0: .front
        case 1: .back
        default: .unspecified
        }
        descriptor = DeviceDescriptor(uniqueID: Self.uniqueID(for: id), localizedName: model.isEmpty ? id : model,
                                      modelID: model.isEmpty ? "libcamera" : model, manufacturer: "libcamera",
                                      deviceType: info.location == 2 ? .external : .builtInWideAngleCamera,
                                      position: position, mediaType: .video)
        // Bayer formats are the raw role's, whichever role lists them (the simple pipeline
        // handler offers its sensor's formats to every role).
        let video = LibCameraFormats.deviceFormats(id, role: Int32(CK_LC_ROLE_VIDEO)).filter { $0.pixelFormat?.isBayer != true }
        let still = LibCameraFormats.deviceFormats(id, role: Int32(CK_LC_ROLE_STILL)).filter { format in
            format.pixelFormat?.isBayer != true
                && !video.contains { $0.pixelFormat == format.pixelFormat && $0.width == format.width && $0.height == format.height }
        }
        let raw = LibCameraFormats.deviceFormats(id, role: Int32(CK_LC_ROLE_RAW)).filter { $0.pixelFormat?.isBayer == true }
        formats = video + still + raw
        stillFormats = Set(still)
        controls = LibCameraControls(id)
        nodes = Mutex(LibCameraNodes.nodes(of: id))
    }

    /// Whether libcamera lists the camera and its capture nodes are there. A camera listed
    /// again after its nodes went (its driver bound again) has its new nodes looked up.
    var isConnected: Bool {
        guard LibCamera.isAvailable, LibCamera.api.camera_exists(cameraID) != 0 else { return false }
        if nodes.withLock({ $0.allSatisfy(\.isPresent) }) { return true }
        let current = LibCameraNodes.nodes(of: cameraID)
        guard !current.isEmpty, current.allSatisfy(\.isPresent) else { return false }
        nodes.withLock { $0 = current }
        return true
    }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        return try LibCameraStream(backend: self, configuration: configuration, sink: sink)
    }

    /// What the camera makes of `configuration` (`CameraConfiguration::validate`): an adjusted
    /// size or layout comes back as the format the device will deliver, which the device keeps
    /// as its `lastFormatSubstitution`. (The format list holds what validation gave at
    /// discovery: an adjustment here means the camera's answer has changed since.)
    func apply(_ configuration: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        let format = configuration.format
        guard let pixelFormat = format.pixelFormat, let drm = LibCameraFormats.drmFormats(for: pixelFormat).first else { return configuration }
        var result = ck_lc_configured()
        let status = try LibCamera.check(LibCamera.api.validate(cameraID, role(for: configuration), drm, UInt32(format.width), UInt32(format.height), &result),
                                         "CameraConfiguration::validate", id: cameraID)
        guard status == 1, let chosen = LibCameraFormats.pixelFormat(drm: result.fourcc),
              let actual = formats.first(where: { $0.pixelFormat == chosen && $0.width == Int(result.width) && $0.height == Int(result.height) })
        else { return configuration }
        var applied = configuration
        applied.format = actual
        return applied
    }

    /// The stream role `configuration` is captured with: the raw role for Bayer formats, the
    /// still role for a photo's format switch and for sizes only it offers, else the video role.
    func role(for configuration: StreamConfiguration) -> Int32 {
        if configuration.format.pixelFormat?.isBayer == true { return Int32(CK_LC_ROLE_RAW) }
        return Int32(configuration.servesStills || stillFormats.contains(configuration.format) ? CK_LC_ROLE_STILL : CK_LC_ROLE_VIDEO)
    }

    var cameraControls: [CaptureDevice.Control] { controls.list }

    func value(of control: CaptureDevice.Control) throws(CaptureError) -> Int64 { try controls.value(of: control) }

    func setValue(_ value: Int64, of control: CaptureDevice.Control) throws(CaptureError) { try controls.set(value, of: control) }
}
