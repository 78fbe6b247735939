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
        guard let stream = input.bestStream(of: AVMEDIA_TYPE_AUDIO), stream.pointee.codecpar != nil else { return nil }
        let formats = try CaptureDevice.Format.decodingSound(stream, path: input.path, failure: .unsupportedFile)
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
