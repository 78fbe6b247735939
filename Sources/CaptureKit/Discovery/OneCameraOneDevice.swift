import Foundation

// One camera, one device: a camera several backends can reach is listed by the most direct
// one. The V4L2 backend lists a camera whose one node captures on its own (UVC webcams, vivid,
// v4l2loopback); libcamera lists cameras that need its pipeline handlers (a sensor behind an
// ISP, a media-controller pipeline such as a Raspberry Pi camera module or vimc), and leaves
// out a camera the V4L2 backend lists (libcamera's `uvcvideo` handler); the V4L2 backend
// leaves out a media-controller node (`V4L2_CAP_IO_MC`) that belongs to a libcamera camera,
// since it cannot capture before its pipeline is configured; PipeWire lists what neither
// reaches (see PipeWireDeviceProvider: nodes of `/dev/video*` nodes this process can open are
// left out). `CAPTUREKIT_CAMERAS=all` turns the first two rules off.

/// The V4L2 cameras, less media-controller nodes that libcamera drives.
struct V4L2CamerasBesideLibCamera: DeviceProvider {
    let provider: V4L2DeviceProvider

    func backends() -> [any DeviceBackend] {
        let all = provider.v4l2Backends()
        guard !OneCameraOneDevice.listsAll, all.contains(where: \.node.capability.isMediaControllerCentric) else { return all }
        let claimed = Set(LibCameraNodes.nodeOwners().map(\.node))
        return all.filter { !($0.node.capability.isMediaControllerCentric && claimed.contains($0.node.path)) }
    }

    func report(to reports: ConnectionReports) { provider.report(to: reports) }
}

/// libcamera's cameras, less those a V4L2 node captures on its own.
struct LibCamerasBesideV4L2: DeviceProvider {
    let provider: LibCameraDeviceProvider
    let v4l2: V4L2DeviceProvider

    func backends() -> [any DeviceBackend] { Self.listed(provider.libcameraBackends(), beside: v4l2) }

    /// libcamera's hot-plug, of the cameras this lists: a camera a V4L2 node reaches is
    /// announced as the V4L2 device only.
    func report(to reports: ConnectionReports) {
        provider.report(to: reports.filtered { [v4l2] backend in
            guard let camera = backend as? LibCameraBackend else { return true }
            return !Self.listed([camera], beside: v4l2).isEmpty
        })
    }

    /// The cameras of `all` no V4L2 node of `v4l2` captures on its own.
    private static func listed(_ all: [LibCameraBackend], beside v4l2: V4L2DeviceProvider) -> [LibCameraBackend] {
        guard !OneCameraOneDevice.listsAll, !all.isEmpty else { return all }
        let direct = Set(v4l2.v4l2Backends().filter { !$0.node.capability.isMediaControllerCentric }.map(\.node.path))
        let reachedDirectly = Set(LibCameraNodes.nodeOwners().filter { direct.contains($0.node) }.map(\.id))
        return all.filter { !reachedDirectly.contains($0.cameraID) }
    }
}

enum OneCameraOneDevice {
    /// `CAPTUREKIT_CAMERAS=all`: every backend lists every camera it reaches.
    static var listsAll: Bool { ProcessInfo.processInfo.environment["CAPTUREKIT_CAMERAS"] == "all" }
}
