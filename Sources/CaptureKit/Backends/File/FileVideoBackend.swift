internal import CFFmpeg
import Foundation

/// A camera playing a file's main video stream. Its one format is the file's: size, frame
/// rate, and the decoder's pixel layout (or I420 when CaptureKit has no such layout).
final class FileVideoBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    let url: URL
    let options: FileDeviceOptions
    private let clock: FileClock

    /// The camera for `input`'s main video stream; nil when the file has none (cover art does
    /// not count). Throws `.unsupportedFile` when the stream cannot be decoded.
    static func make(_ input: MediaInput, url: URL, descriptor: DeviceDescriptor, options: FileDeviceOptions,
                     clock: FileClock) throws(CaptureError) -> FileVideoBackend? {
        guard let stream = input.bestStream(of: AVMEDIA_TYPE_VIDEO),
              stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0,
              stream.pointee.codecpar != nil else { return nil }
        let format = try CaptureDevice.Format.decoding(stream, path: input.path, failure: .unsupportedFile)
        return FileVideoBackend(descriptor: descriptor, format: format, url: url, options: options, clock: clock)
    }

    private init(descriptor: DeviceDescriptor, format: CaptureDevice.Format, url: URL, options: FileDeviceOptions, clock: FileClock) {
        self.descriptor = descriptor
        formats = [format]
        self.url = url
        self.options = options
        self.clock = clock
    }

    /// A file does not come and go; a file deleted since is reported when streaming starts.
    var isConnected: Bool { true }
    var isLive: Bool { options.pacing == .realTime }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        let url = self.url, format = configuration.format, frameDuration = format.minFrameDuration
        let open: FileStream.OpenReader = { () throws(CaptureError) -> any FileSampleReader in
            try FileVideoReader(url: url, format: format, frameDuration: frameDuration)
        }
        return FileStream(name: "CaptureKit.file.video", first: try open(), options: options, clock: clock, sink: sink, open: open)
    }
}
