import Synchronization

/// The virtual camera: renders ``TestPattern`` frames (or loops given frames) on its own
/// thread, paced on absolute monotonic deadlines. A frame's timestamp is its deadline.
final class VirtualCameraBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    /// Every format the camera was made with.
    let allFormats: [CaptureDevice.Format]
    let configuration: VirtualCameraConfiguration
    let connection = VirtualConnection()

    /// `origin` is `.standIn` for the built-in cameras, `.virtual` for one made on request.
    init(configuration: VirtualCameraConfiguration, origin: DeviceDescriptor.Origin = .virtual) throws(CaptureError) {
        guard ![.microphone, .systemAudio, .file].contains(configuration.deviceType) else {
            throw .invalidArgument("a virtual camera cannot be of device type \(configuration.deviceType.rawValue)")
        }
        self.configuration = configuration
        descriptor = DeviceDescriptor(
            uniqueID: configuration.uniqueID ?? VirtualDeviceProvider.slug(configuration.name),
            localizedName: configuration.name, modelID: "CaptureKit Virtual Camera", manufacturer: "CaptureKit",
            deviceType: configuration.deviceType, position: configuration.position, mediaType: .video, origin: origin,
            bus: configuration.bus)
        let rates = configuration.frameRates.sorted(by: >).map { CaptureDevice.FrameRateRange(fps: $0) }
        guard !rates.isEmpty, configuration.frameRates.allSatisfy({ $0 > 0 }) else {
            throw .invalidArgument("a virtual camera needs at least one positive frame rate")
        }
        switch configuration.content {
        case .testPattern:
            guard configuration.pixelFormats.allSatisfy(\.isYUV) else {
                throw CaptureError(.unsupportedFormat, "the virtual camera draws YUV formats only")
            }
            allFormats = configuration.sizes.flatMap { size in
                configuration.pixelFormats.map { CaptureDevice.Format(pixelFormat: $0, width: size.width, height: size.height, frameRateRanges: rates) }
            }
        case .frames(let frames):
            guard let first = frames.first,
                  frames.allSatisfy({ $0.width == first.width && $0.height == first.height && $0.pixelFormat == first.pixelFormat }) else {
                throw .invalidArgument("a virtual camera needs at least one frame, all of one size and format")
            }
            allFormats = [CaptureDevice.Format(pixelFormat: first.pixelFormat, width: first.width, height: first.height, frameRateRanges: rates)]
        }
        guard !allFormats.isEmpty else { throw .invalidArgument("a virtual camera needs at least one size and pixel format") }
    }

    /// What the camera offers now: since `simulateReconnect(offering:)`, only those.
    var formats: [CaptureDevice.Format] { connection.offeredFormats ?? allFormats }
    var isConnected: Bool { connection.isConnected }
    var isLive: Bool { configuration.pacing == .realTime }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        guard let pixelFormat = configuration.format.pixelFormat else { throw .internalError("video format without pixel format") }
        let source: FrameSource
        switch self.configuration.content {
        case .testPattern:
            source = .pattern(try TestPattern(width: configuration.format.width, height: configuration.format.height,
                                              pixelFormat: pixelFormat, frameDuration: configuration.frameDuration))
        case .frames(let frames):
            source = .frames(frames)
        }
        return VirtualStream(name: "CaptureKit.camera", connection: connection, format: configuration.format, device: descriptor,
                             pacing: self.configuration.pacing,
                             period: configuration.frameDuration, maximumLateness: configuration.frameDuration * 3, sink: sink) { index, pts, duration throws(CaptureError) in
            let frame = try source.frame(at: index)
            return SampleBuffer(media: .video(frame), presentationTimeStamp: pts, duration: duration, sequenceNumber: UInt64(index))
        }
    }

    private enum FrameSource: Sendable {
        case pattern(TestPattern)
        case frames([PixelBuffer])

        func frame(at index: Int) throws(CaptureError) -> PixelBuffer {
            switch self {
            case .pattern(let pattern): return try pattern.render(frameIndex: index)
            case .frames(let frames): return frames[index % frames.count]
            }
        }
    }
}

/// Whether a virtual device is "plugged in", and which of its formats it offers since it came
/// back; set by `simulateDisconnect()` and `simulateReconnect(offering:)`.
final class VirtualConnection: Sendable {
    private let connected = Atomic<Bool>(true)
    private let offered = Mutex<[CaptureDevice.Format]?>(nil)
    /// Read by the device thread at every sample: an atomic, not a lock.
    var isConnected: Bool { connected.load(ordering: .acquiring) }
    /// The formats the device came back with; nil for all of them.
    var offeredFormats: [CaptureDevice.Format]? { offered.withLock { $0 } }

    func set(_ value: Bool, offering formats: [CaptureDevice.Format]? = nil) {
        if value { offered.withLock { $0 = formats } }
        connected.store(value, ordering: .releasing)
    }

    /// Why a stream in `format` cannot resume on the device as it came back, or nil.
    func refusal(of format: CaptureDevice.Format, device: DeviceDescriptor) -> CaptureError? {
        guard let offered = offeredFormats, !offered.contains(format) else { return nil }
        return CaptureError(.unsupportedFormat, "\(device.localizedName) came back without the format it was capturing (\(format))",
                            deviceID: device.uniqueID)
    }
}
