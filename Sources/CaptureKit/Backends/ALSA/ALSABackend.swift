/// A capture PCM of ALSA (libasound), for machines without a sound server: a sound card's
/// `hw:` device found by discovery, or any PCM named with
/// ``CaptureDevice/alsaMicrophone(pcm:localizedName:)`` (`plughw:1,0`, `pulse`, `default`, a
/// PCM defined in an asoundrc).
final class ALSABackend: DeviceBackend {
    /// What starts the unique ID of every ALSA device, before the PCM name.
    static let uniqueIDPrefix = "alsa:"

    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    /// The ALSA name opened for capture.
    let pcmName: String
    /// The running stream's counters (xruns, lost frames), shared by every stream it starts.
    let counters = ALSAStreamCounters()
    /// How PCMs are opened (``ALSAPCM/opener``, unless a test wraps it).
    private let open: ALSAOpener

    /// Opens `pcmName` once to learn its formats (without waiting: a busy device fails at once
    /// with `.deviceBusy`). `.deviceNotFound` when there is no such PCM, `.unsupportedFormat`
    /// when it has no interleaved s16/s32/f32 format.
    init(pcmName: String, localizedName: String, modelID: String = "ALSA PCM", manufacturer: String = "ALSA",
         open: @escaping ALSAOpener = ALSAPCM.opener) throws(CaptureError) {
        let probed = try open(pcmName).supportedFormats()
        guard !probed.isEmpty else {
            throw CaptureError(.unsupportedFormat, "ALSA PCM '\(pcmName)' has no interleaved s16, s32 or float capture format",
                               deviceID: Self.uniqueIDPrefix + pcmName)
        }
        self.pcmName = pcmName
        self.open = open
        formats = probed.map { CaptureDevice.Format(audioFormat: $0) }
        descriptor = DeviceDescriptor(uniqueID: Self.uniqueIDPrefix + pcmName, localizedName: localizedName, modelID: modelID,
                                      manufacturer: manufacturer, deviceType: .microphone, position: .unspecified, mediaType: .audio)
    }

    var isConnected: Bool { true }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        guard let format = configuration.format.audioFormat else { throw .internalError("audio format without sample format") }
        return try ALSAStream(pcmName: pcmName, format: format, sink: sink, counters: counters, open: open)
    }
}
