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
              let parameters = stream.pointee.codecpar else { return nil }
        let codec = parameters.pointee.codec_id
        guard avcodec_find_decoder(codec) != nil else {
            throw CaptureError(.unsupportedFile, "no decoder for the video codec \(String(cString: avcodec_get_name(codec)))",
                               operation: "avcodec_find_decoder", path: input.path)
        }
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw CaptureError(.unsupportedFile, "the video stream has no usable frame size (\(width)x\(height))", path: input.path)
        }
        let decoded = AVPixelFormat(rawValue: parameters.pointee.format)
        let pixelFormat = FileFrameConverter.pixelFormat(exactly: decoded) ?? .yuv420p
        let frameDuration = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate]
            .first(where: \.isPositive).map { MediaTime(value: Int64($0.den), timescale: $0.num) }
            ?? MediaTime(value: 1, timescale: 30)
        let format = CaptureDevice.Format(pixelFormat: pixelFormat, width: width, height: height,
                                          frameRateRanges: [CaptureDevice.FrameRateRange(minFrameDuration: frameDuration, maxFrameDuration: frameDuration)])
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
