internal import CFFmpeg
import Foundation

/// A microphone playing a file's main audio stream. Its formats are the file's rate and channel
/// count as interleaved `s16` and `f32`, the one closer to the decoder's output first.
final class FileAudioBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    let url: URL
    let options: FileDeviceOptions
    private let clock: FileClock

    /// The microphone for `input`'s main audio stream; nil when the file has none. Throws
    /// `.unsupportedFile` when the stream cannot be decoded.
    static func make(_ input: MediaInput, url: URL, descriptor: DeviceDescriptor, options: FileDeviceOptions,
                     clock: FileClock) throws(CaptureError) -> FileAudioBackend? {
        guard let stream = input.bestStream(of: AVMEDIA_TYPE_AUDIO), let parameters = stream.pointee.codecpar else { return nil }
        let codec = parameters.pointee.codec_id
        guard avcodec_find_decoder(codec) != nil else {
            throw CaptureError(.unsupportedFile, "no decoder for the audio codec \(String(cString: avcodec_get_name(codec)))",
                               operation: "avcodec_find_decoder", path: input.path)
        }
        let rate = Int(parameters.pointee.sample_rate), channels = Int(parameters.pointee.ch_layout.nb_channels)
        let probe = AudioFormat(sampleRate: rate, channelCount: channels, sampleFormat: .s16)
        guard probe.isValid, rate <= Int(Int32.max) else {
            throw CaptureError(.unsupportedFile, "the audio stream has no usable rate and channel count (\(rate) Hz, \(channels) channels)",
                               path: input.path)
        }
        let decoded = AVSampleFormat(rawValue: parameters.pointee.format)
        let integer = decoded == AV_SAMPLE_FMT_S16 || decoded == AV_SAMPLE_FMT_S16P || decoded == AV_SAMPLE_FMT_U8 || decoded == AV_SAMPLE_FMT_U8P
        let order: [AudioFormat.SampleFormat] = integer ? [.s16, .f32] : [.f32, .s16]
        let formats = order.map { CaptureDevice.Format(audioFormat: AudioFormat(sampleRate: rate, channelCount: channels, sampleFormat: $0)) }
        return FileAudioBackend(descriptor: descriptor, formats: formats, url: url, options: options, clock: clock)
    }

    private init(descriptor: DeviceDescriptor, formats: [CaptureDevice.Format], url: URL, options: FileDeviceOptions, clock: FileClock) {
        self.descriptor = descriptor
        self.formats = formats
        self.url = url
        self.options = options
        self.clock = clock
    }

    /// A file does not come and go; a file deleted since is reported when streaming starts.
    var isConnected: Bool { true }
    var isLive: Bool { options.pacing == .realTime }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        guard let format = configuration.format.audioFormat else { throw .internalError("audio format without sample format") }
        let url = self.url
        let open: FileStream.OpenReader = { () throws(CaptureError) -> any FileSampleReader in
            try FileAudioReader(url: url, format: format)
        }
        return FileStream(name: "CaptureKit.file.audio", first: try open(), options: options, clock: clock, sink: sink, open: open)
    }
}
