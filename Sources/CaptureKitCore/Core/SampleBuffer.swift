import Synchronization

/// One unit of captured media with its timing, as `CMSampleBuffer`: a video frame or a run of
/// audio frames, the time it was captured on the session clock, and how long it lasts.
///
/// Sample buffers are immutable and shared by reference between all outputs. When several
/// outputs want the same frame in another pixel format or size, the conversion runs once and
/// the result is shared (see ``converted(to:)``).
///
/// ```swift
/// if let frame = sampleBuffer.pixelBuffer {
///     print(sampleBuffer.presentationTimeStamp.seconds, frame.width, frame.height, frame.pixelFormat)
/// } else if let sound = sampleBuffer.audioBuffer {
///     print(sampleBuffer.duration.seconds, sound.format)
/// }
/// ```
public final class SampleBuffer: Sendable {
    /// The payload.
    public enum Media: Sendable {
        /// A video frame.
        case video(PixelBuffer)
        /// Audio frames.
        case audio(AudioBuffer)
    }

    /// The payload.
    public let media: Media
    /// The capture time on the session clock (`CLOCK_MONOTONIC`, nanoseconds or sample units).
    public let presentationTimeStamp: MediaTime
    /// How long the sample lasts: the frame duration, or the audio frames at their rate.
    public let duration: MediaTime
    /// The device's running count of this sample since its stream started (video frame index,
    /// or index of the first audio frame). A jump means the device dropped something.
    public let sequenceNumber: UInt64
    /// The picture as the device coded it, when it sent compressed frames: one JPEG (MJPEG),
    /// or the H.264/HEVC packets read since the frame before, in decode order (one, unless the
    /// stream reorders frames).
    package let compressedFrames: [CompressedFrame]
    /// Whether the picture is a blank stand-in: the device left the frame undecoded because
    /// no output wanted its pixels, only ``compressedFrames``.
    package let pixelsAreStandIn: Bool

    /// The first of ``compressedFrames``: the JPEG of an MJPEG frame.
    package var compressedFrame: CompressedFrame? { compressedFrames.first }

    /// Conversions made so far, by target (see ``converted(to:)``).
    package let conversions = Mutex<[VideoTarget: SampleBuffer]>([:])

    /// Makes a sample buffer.
    public convenience init(media: Media, presentationTimeStamp: MediaTime, duration: MediaTime, sequenceNumber: UInt64 = 0) {
        self.init(media: media, presentationTimeStamp: presentationTimeStamp, duration: duration, sequenceNumber: sequenceNumber, compressedFrames: [])
    }

    /// A decoded frame that keeps the device's compressed picture.
    package convenience init(media: Media, presentationTimeStamp: MediaTime, duration: MediaTime, sequenceNumber: UInt64, compressedFrame: CompressedFrame?) {
        self.init(media: media, presentationTimeStamp: presentationTimeStamp, duration: duration, sequenceNumber: sequenceNumber,
                  compressedFrames: compressedFrame.map { [$0] } ?? [])
    }

    /// A decoded frame that keeps the packets the device coded it in.
    package init(media: Media, presentationTimeStamp: MediaTime, duration: MediaTime, sequenceNumber: UInt64, compressedFrames: [CompressedFrame],
                 pixelsAreStandIn: Bool = false) {
        self.media = media
        self.presentationTimeStamp = presentationTimeStamp
        self.duration = duration
        self.sequenceNumber = sequenceNumber
        self.compressedFrames = compressedFrames
        self.pixelsAreStandIn = pixelsAreStandIn
    }

    /// The same sample under another sequence number (a stream that numbers on across a
    /// device's return).
    package func renumbered(_ sequenceNumber: UInt64) -> SampleBuffer {
        SampleBuffer(media: media, presentationTimeStamp: presentationTimeStamp, duration: duration,
                     sequenceNumber: sequenceNumber, compressedFrames: compressedFrames, pixelsAreStandIn: pixelsAreStandIn)
    }

    /// The video frame, or nil for audio (`CMSampleBufferGetImageBuffer`).
    public var pixelBuffer: PixelBuffer? {
        if case .video(let buffer) = media { return buffer }
        return nil
    }

    /// The audio frames, or nil for video.
    public var audioBuffer: AudioBuffer? {
        if case .audio(let buffer) = media { return buffer }
        return nil
    }

    /// What the payload is.
    public var formatDescription: FormatDescription {
        switch media {
        case .video(let buffer): return .video(width: buffer.width, height: buffer.height, pixelFormat: buffer.pixelFormat)
        case .audio(let buffer): return .audio(buffer.format)
        }
    }

    /// The media type of the payload.
    public var mediaType: MediaType { formatDescription.mediaType }

}

/// A pixel format and size to convert frames to; nil members keep the source's value.
public struct VideoTarget: Sendable, Hashable {
    /// The wanted layout, or nil for the device's.
    public var pixelFormat: PixelFormat?
    /// The wanted width, or nil for the device's.
    public var width: Int?
    /// The wanted height, or nil for the device's.
    public var height: Int?

    /// A target; leave a member nil to keep the source's value.
    public init(pixelFormat: PixelFormat? = nil, width: Int? = nil, height: Int? = nil) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
    }
}
