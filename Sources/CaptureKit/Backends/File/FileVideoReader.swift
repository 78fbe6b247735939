internal import CFFmpeg
import Foundation

/// One pass through a file's main video stream: decoded frames as pixel buffers, timed in the
/// stream's own time base (so a 1/15360 MP4 keeps every tick).
final class FileVideoReader: FileSampleReader, @unchecked Sendable {
    // Unchecked Sendable: FFmpeg decoder state confined to the file device's stream thread.
    let timescale: Int32
    private let decoder: FileDecoder
    private let converter: FileFrameConverter
    private let frame: UnsafeMutablePointer<AVFrame>
    /// Stream time-base numerator: file ticks are multiplied by it to count in `timescale`.
    private let unit: Int64
    /// The file's zero in stream ticks; nil until the first frame when the container has none.
    private var zero: Int64?
    /// The duration of a frame that does not carry one, in `timescale` units.
    private let defaultDuration: Int64
    private var nextGuess: Int64 = 0

    /// Opens the file for `format` (one of the device's formats) with frames of `frameDuration`.
    init(url: URL, format: CaptureDevice.Format, frameDuration: MediaTime) throws(CaptureError) {
        let input = try MediaInput(url: url)
        decoder = try FileDecoder(input: input, type: AVMEDIA_TYPE_VIDEO)
        let timeBase = decoder.timeBase
        guard timeBase.isPositive, let pixelFormat = format.pixelFormat else {
            throw CaptureError(.unsupportedFile, "the video stream has no usable time base", path: input.path)
        }
        guard let frame = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: input.path)
        }
        self.frame = frame
        timescale = timeBase.den
        unit = Int64(timeBase.num)
        zero = input.startTimeMicroseconds.map { av_rescale_q($0, AVRational(num: 1, den: 1_000_000), timeBase) }
        let duration = frameDuration.isNumeric ? frameDuration : MediaTime(value: 1, timescale: 30)
        defaultDuration = max(1, duration.convertScale(timeBase.den).value)
        converter = FileFrameConverter(pixelFormat: pixelFormat, width: format.width, height: format.height, path: input.path)
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&freeing)
    }

    func next() throws(CaptureError) -> FileSample? {
        guard try decoder.decode(into: frame) else { return nil }
        let ticks = FileDecoder.timestamp(of: frame)
        let duration = frame.pointee.pkt_duration > 0 ? frame.pointee.pkt_duration * unit : defaultDuration
        let time: Int64
        if let ticks {
            let zero = self.zero ?? ticks
            self.zero = zero
            time = (ticks - zero) * unit
        } else {
            // No timestamp at all: the frame follows the previous one.
            time = nextGuess
        }
        nextGuess = time + duration
        let buffer = try converter.pixelBuffer(from: frame)
        return FileSample(media: .video(buffer), time: time, duration: duration, length: 1)
    }
}
