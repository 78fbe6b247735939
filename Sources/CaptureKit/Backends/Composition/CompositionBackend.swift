import Synchronization

/// The device a ``CaptureCompositionOutput`` makes of its composed frames: a camera whose
/// frames are pushed by the output instead of captured, so a movie, stream or data output
/// records the composition as it records any camera.
final class CompositionBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    private let sink = Mutex<StreamSink?>(nil)
    private let present = Atomic<Bool>(true)

    init(name: String, uniqueID: String, size: VideoDimensions, frameRate: Int32) {
        descriptor = DeviceDescriptor(uniqueID: uniqueID, localizedName: name, modelID: "CaptureKit Composition", manufacturer: "CaptureKit",
                                      deviceType: .virtual, position: .unspecified, mediaType: .video, origin: .virtual)
        formats = [CaptureDevice.Format(pixelFormat: .nv12, width: size.width, height: size.height,
                                        frameRateRanges: [CaptureDevice.FrameRateRange(fps: frameRate)])]
    }

    var isConnected: Bool { present.load(ordering: .relaxed) }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        self.sink.withLock { $0 = sink }
        return CompositionStream(backend: self)
    }

    /// Hands a composed frame to the running stream, if any.
    func deliver(_ sample: SampleBuffer) { sink.withLock { $0 }?.deliver(sample) }

    /// The composition could not make `count` frames (its main camera's were dropped).
    func dropped(_ count: Int) { sink.withLock { $0 }?.event(.droppedFrames(count: count)) }

    /// The main camera went away (false) or came back (true): the composition goes and comes with it.
    func setPresent(_ isPresent: Bool) {
        guard present.exchange(isPresent, ordering: .relaxed) != isPresent else { return }
        sink.withLock { $0 }?.event(isPresent ? .reconnected : .disconnected)
    }

    fileprivate func streamStopped() { sink.withLock { $0 = nil } }
}

/// The running stream of a ``CompositionBackend``: nothing of its own to stop but the sink.
private final class CompositionStream: DeviceStream {
    private let backend: CompositionBackend

    init(backend: CompositionBackend) { self.backend = backend }

    func stop() { backend.streamStopped() }
}
