/// The sound of a network camera, as a microphone: read from the camera's connection
/// (``NetworkCameraFeed``), so it shares the camera's clock and costs no second connection.
/// Its formats are the stream's rate and channel count as interleaved `s16` and `f32`.
final class NetworkMicrophoneBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    /// The camera whose connection it listens to.
    let camera: NetworkCameraBackend

    /// The microphone of `camera`; nil when the camera sends no sound CaptureKit decodes.
    init?(camera: NetworkCameraBackend) {
        guard !camera.soundFormats.isEmpty else { return nil }
        self.camera = camera
        formats = camera.soundFormats
        let identity = camera.descriptor
        descriptor = DeviceDescriptor(uniqueID: "\(identity.uniqueID)#audio", localizedName: identity.localizedName,
                                      modelID: identity.modelID, manufacturer: identity.manufacturer, deviceType: .network,
                                      position: .unspecified, mediaType: .audio)
    }

    var isConnected: Bool { camera.isConnected }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        guard let format = configuration.format.audioFormat else { throw .internalError("audio format without sample format") }
        return try camera.feed.startSound(sink, format: format, start: camera.connection)
    }
}
