// The one place that names every built-in backend. Layers below (Devices) define what a
// registry and a connection hub are; backends provide devices; this file puts them together,
// so that adding a backend means adding its provider here and nowhere in Devices.

extension DeviceRegistry {
    /// Every built-in backend, in discovery order: cameras (V4L2 and libcamera — on the direct
    /// camera route only, each camera once (OneCameraOneDevice.swift) — then PipeWire's),
    /// virtual and file devices, sound server sources, then ALSA cards (listed only when no
    /// sound server has them).
    static let shared = DeviceRegistry(providers: [DirectCameras(V4L2CamerasBesideLibCamera(provider: .shared)),
                                                   DirectCameras(LibCamerasBesideV4L2(provider: .shared, v4l2: .shared)), PipeWireDeviceProvider.shared, VirtualDeviceProvider.shared,
                                                   FileDeviceProvider.shared, PulseDeviceProvider.shared, ALSADeviceProvider.shared])
}

extension DeviceConnectionHub {
    /// Connection events of the built-in devices: cameras by watching `/dev`, sound-server
    /// sources posted by their provider.
    static let shared: DeviceConnectionHub = {
        let registry = DeviceRegistry.shared
        let hub = DeviceConnectionHub(registry: registry, watch: { try? V4L2HotplugMonitor(directory: "/dev", changed: $0) },
                                      invalidate: { V4L2DeviceProvider.shared.invalidate() }) {
            Dictionary(registry.devices().filter { !$0.isVirtual }.map { ($0.uniqueID, $0) }, uniquingKeysWith: { first, _ in first })
        }
        for provider in registry.providers { provider.report(to: ConnectionReports(to: hub)) }
        return hub
    }()
}

/// The cameras a provider opens directly, listed only on the direct camera route: on the portal
/// route cameras come only through the Camera portal, as a sandbox requires.
private struct DirectCameras: DeviceProvider {
    let provider: any DeviceProvider

    init(_ provider: any DeviceProvider) { self.provider = provider }

    func backends() -> [any DeviceBackend] {
        CaptureDevice.cameraRoute == .direct ? provider.backends() : []
    }

    func report(to reports: ConnectionReports) {
        provider.report(to: reports.filtered { _ in CaptureDevice.cameraRoute == .direct })
    }
}
