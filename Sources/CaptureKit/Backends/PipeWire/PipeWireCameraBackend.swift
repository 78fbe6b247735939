internal import CPipeWire
import Synchronization

/// A PipeWire camera node as a device (`pipewire:<node name>`): its formats are the node's
/// enumerated raw formats (a range of sizes offered at the usual camera sizes inside it), and a
/// stream pins the size and rate the session chose — PipeWire would otherwise pick the node's
/// first format.
final class PipeWireCameraBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let nodeName: String
    private let camera: Mutex<PipeWireCameraInfo>
    private let provider: PipeWireDeviceProvider

    init(camera: PipeWireCameraInfo, provider: PipeWireDeviceProvider) {
        nodeName = camera.name
        let name = camera.description.isEmpty ? camera.name : camera.description
        descriptor = DeviceDescriptor(uniqueID: "pipewire:\(camera.name)", localizedName: name,
                                      modelID: camera.deviceAPI.isEmpty ? "pipewire" : "pipewire-\(camera.deviceAPI)",
                                      manufacturer: "PipeWire", deviceType: .external, position: .unspecified, mediaType: .video)
        self.camera = Mutex(camera)
        self.provider = provider
    }

    /// The node as the daemon lists it now (it may have come back under another serial).
    func update(_ camera: PipeWireCameraInfo) { self.camera.withLock { $0 = camera } }

    var formats: [CaptureDevice.Format] { camera.withLock { $0.formats.map(\.format) } }

    /// What the node is a route to, as PipeWire names it (`v4l2:/dev/video0`), or empty.
    var objectPath: String { camera.withLock { $0.objectPath } }

    var isConnected: Bool { provider.isPresent(nodeName) }

    /// What the stream asks PipeWire for: `configuration`'s size, layout and rate, the node's
    /// serial now, and whether its frames may be kept by reference.
    func request(for configuration: StreamConfiguration) -> (serial: UInt64, format: ck_pw_format, lends: Bool)? {
        camera.withLock { camera in
            guard var request = camera.formats.first(where: { $0.format == configuration.format })?.request else { return nil }
            let duration = configuration.frameDuration.isNumeric && configuration.frameDuration > .zero
                ? configuration.frameDuration : configuration.format.minFrameDuration
            request.rate_count = 1
            request.rate_num.0 = UInt32(clamping: duration.timescale)
            request.rate_den.0 = UInt32(clamping: duration.value)
            return (camera.serial, request, camera.lendsBuffers)
        }
    }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        return try PipeWireCameraStream(backend: self, provider: provider, configuration: configuration, sink: sink)
    }
}
