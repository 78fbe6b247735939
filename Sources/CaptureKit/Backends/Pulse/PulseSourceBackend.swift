/// One source of the sound server as a device: a microphone, or the monitor of an output
/// (`.systemAudio`). Records through PipeWire's own stream when the server is PipeWire's, else
/// through a `pa_stream` record stream on the provider's connection (``SoundServerRoute``).
final class PulseSourceBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    /// The server's name for the source, which recording asks for.
    let sourceName: String
    /// The sink whose output a monitor records; nil for a microphone.
    let monitoredSink: String?
    private let provider: PulseDeviceProvider

    /// The prefix of every sound-server device's unique ID (`pulse:<source name>`).
    static let uniqueIDPrefix = "pulse:"

    init(source: PulseSourceInfo, serverName: String, provider: PulseDeviceProvider) {
        sourceName = source.name
        monitoredSink = source.monitoredSink
        self.provider = provider
        descriptor = DeviceDescriptor(
            uniqueID: Self.uniqueIDPrefix + source.name, localizedName: source.description,
            modelID: source.driver.isEmpty ? source.name : source.driver, manufacturer: source.vendor ?? serverName,
            deviceType: source.isMonitor ? .systemAudio : .microphone, position: .unspecified, mediaType: .audio)
        formats = Self.formats(for: source)
    }

    /// The source's own format first (no conversion in the server), then the common rates,
    /// mono and stereo, in every sample format: the server converts to any of them.
    static func formats(for source: PulseSourceInfo) -> [CaptureDevice.Format] {
        func unique<T: Equatable>(_ values: [T]) -> [T] {
            values.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        }
        let rates = unique([source.sampleRate, 48_000, 44_100].filter { (8_000...192_000).contains($0) })
        let channels = unique([min(max(source.channelCount, 1), 8), 1, 2])
        let sampleFormats = unique([source.sampleFormat ?? .s16, .s16, .s32, .f32])
        return rates.flatMap { rate in
            channels.flatMap { count in
                sampleFormats.map { CaptureDevice.Format(audioFormat: AudioFormat(sampleRate: rate, channelCount: count, sampleFormat: $0)) }
            }
        }
    }

    var isConnected: Bool { provider.isPresent(sourceName) }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        guard formats.contains(configuration.format), let format = configuration.format.audioFormat else {
            throw CaptureError(.unsupportedFormat, "\(descriptor.localizedName) has no format \(configuration.format)", deviceID: descriptor.uniqueID)
        }
        let connection = try provider.liveConnection(for: descriptor.uniqueID)
        if try route(for: format, on: connection) == .pipeWire {
            let target = PipeWireAudioStream.Target(node: monitoredSink ?? sourceName, isSinkMonitor: monitoredSink != nil)
            do throws(CaptureError) {
                return try PipeWireAudioStream(target: target, sourceName: sourceName, deviceID: descriptor.uniqueID,
                                               format: format, sink: sink, provider: provider)
            } catch {
                // Not recordable that way (another daemon than the server's): libpulse's route.
                CaptureLog.emit(.info, "capturekit", "\(error.message); recording \(sourceName) through libpulse instead")
            }
        }
        return try PulseCaptureStream(io: PulseRecordStream(connection: connection, provider: provider), sourceName: sourceName,
                                      deviceID: descriptor.uniqueID, format: format, sink: sink)
    }

    /// The route recording `format` takes on the server behind `connection`.
    func route(for format: AudioFormat, on connection: PulseConnection) throws(CaptureError) -> SoundServerRoute {
        SoundServerRoute.route(serverName: try connection.serverInfo().name, channelCount: format.channelCount)
    }
}
