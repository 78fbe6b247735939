internal import CPulse

/// One source of the sound server (`pa_source_info`), copied out of the callback.
struct PulseSourceInfo: Sendable, Equatable {
    var index: UInt32
    /// The server's name for it, which recording asks for ("alsa_input.usb-…", "tonemic").
    var name: String
    /// The name to show people.
    var description: String
    /// The monitor of a sink (what the machine plays) rather than a microphone.
    var isMonitor: Bool
    /// The sink a monitor belongs to (`monitor_of_sink_name`); nil for a microphone.
    var monitoredSink: String?
    var driver: String
    var vendor: String?
    var sampleRate: Int
    var channelCount: Int
    /// The source's own sample format, when it is one CaptureKit delivers.
    var sampleFormat: AudioFormat.SampleFormat?

    init(_ info: pa_source_info) {
        index = info.index
        name = info.name.map { String(cString: $0) } ?? "source-\(info.index)"
        description = info.description.map { String(cString: $0) } ?? name
        isMonitor = info.monitor_of_sink != ck_pa_invalid_index()
        monitoredSink = isMonitor ? info.monitor_of_sink_name.map { String(cString: $0) } : nil
        driver = info.driver.map { String(cString: $0) } ?? ""
        vendor = info.proplist.flatMap { pa_proplist_gets($0, "device.vendor.name") }.map { String(cString: $0) }
        sampleRate = Int(info.sample_spec.rate)
        channelCount = Int(info.sample_spec.channels)
        sampleFormat = Self.sampleFormat(info.sample_spec.format)
    }

    static func sampleFormat(_ format: pa_sample_format_t) -> AudioFormat.SampleFormat? {
        switch format {
        case PA_SAMPLE_S16LE: return .s16
        case PA_SAMPLE_S32LE: return .s32
        case PA_SAMPLE_FLOAT32LE: return .f32
        default: return nil
        }
    }

    /// The libpulse sample format for one of CaptureKit's (little-endian, as on every Linux
    /// machine CaptureKit runs on).
    static func pulseFormat(_ format: AudioFormat.SampleFormat) -> pa_sample_format_t {
        switch format {
        case .s16: return PA_SAMPLE_S16LE
        case .s32: return PA_SAMPLE_S32LE
        case .f32: return PA_SAMPLE_FLOAT32LE
        }
    }
}
