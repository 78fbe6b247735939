import CaptureKitCore
package import CFFmpeg
import Foundation

/// Finds and decodes the video frame of a file shown at a time, within tolerances: the engine
/// of ``AssetImageGenerator``. Keeps its file open between requests, so a series of thumbnails
/// of one movie opens it once. Used by one thread at a time.
///
/// Times are on the asset's timeline: zero is the container's start (`AVFormatContext.start_time`),
/// as for `ffmpeg -ss`. A request seeks to the keyframe at or before the time
/// (`av_seek_frame` with `AVSEEK_FLAG_BACKWARD`, through ``FileDecoder``), decodes forward
/// (`avcodec_send_packet` / `avcodec_receive_frame`) and picks:
/// 1. the first frame whose presentation time lies in `[time − before, time + after]`;
/// 2. else, once a frame later than that window arrives, the frame on screen at `time` (the
///    last one at or before it) — the exact frame when both tolerances are zero;
/// 3. at the end of the stream, the last frame (times past the end clamp to it).
///
/// When the keyframe the demuxer lands on is shown after `time` (containers that index by
/// decode time, with B-frames), the seek is retried further back, down to the start.
/// Photos and cover art are single pictures: every time gives that picture, at time zero.
package final class AssetFrameSeeker: AssetFrameSource, @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg decoder used by one thread at a time.
    /// What to find: a numeric `time`, and non-negative (or infinite) tolerances.
    package struct Request {
        package var time: MediaTime
        package var toleranceBefore: MediaTime
        package var toleranceAfter: MediaTime

        package init(time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime) {
            self.time = time
            self.toleranceBefore = toleranceBefore
            self.toleranceAfter = toleranceAfter
        }
    }

    /// The frames of the file at `url`: through libheif for a HEIF or AVIF still (by its
    /// `ftyp` brands, as `MediaAsset` tells them), through FFmpeg for anything else.
    package static func source(url: URL, isPhoto: Bool) throws(CaptureError) -> any AssetFrameSource {
        if HEIFImage.isHEIF(url) { return try HEIFFrameSource(url: url) }
        return try AssetFrameSeeker(url: url, isPhoto: isPhoto)
    }

    package let url: URL
    private let isPhoto: Bool
    private var decoder: FileDecoder
    /// The file's zero on the stream's timeline.
    private var origin: MediaTime
    /// Whether nothing was decoded since the file was opened.
    private var atStart = true
    private let current: UnsafeMutablePointer<AVFrame>
    private let held: UnsafeMutablePointer<AVFrame>

    /// Opens `url` and a decoder for its main video stream; `isPhoto` for still images.
    package init(url: URL, isPhoto: Bool) throws(CaptureError) {
        self.url = url
        self.isPhoto = isPhoto
        (decoder, origin) = try Self.open(url)
        guard let current = av_frame_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: url.path)
        }
        guard let held = av_frame_alloc() else {
            var freeing: UnsafeMutablePointer<AVFrame>? = current
            av_frame_free(&freeing)
            throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: url.path)
        }
        self.current = current
        self.held = held
    }

    deinit {
        var freeingCurrent: UnsafeMutablePointer<AVFrame>? = current
        av_frame_free(&freeingCurrent)
        var freeingHeld: UnsafeMutablePointer<AVFrame>? = held
        av_frame_free(&freeingHeld)
    }

    private static func open(_ url: URL) throws(CaptureError) -> (FileDecoder, MediaTime) {
        let input = try MediaInput(url: url)
        let decoder = try FileDecoder(input: input, type: AVMEDIA_TYPE_VIDEO)
        guard decoder.timeBase.isPositive else {
            throw CaptureError(.unsupportedFile, "the video stream has no usable time base", path: input.path)
        }
        let origin = MediaTime(value: input.startTimeMicroseconds ?? 0, timescale: 1_000_000)
        return (decoder, origin)
    }

    /// Starts again from the beginning of the file with a fresh demuxer and decoder.
    private func reopen() throws(CaptureError) {
        (decoder, origin) = try Self.open(url)
        atStart = true
    }

    /// The frame for `request` and its presentation time on the asset's timeline. The frame
    /// stays valid until the next call or ``release()``.
    package func frame(for request: Request) throws(CaptureError) -> (frame: UnsafeMutablePointer<AVFrame>, time: MediaTime) {
        release()
        if isPhoto || decoder.stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
            return try picture()
        }
        let time = MediaTime.maximum(request.time, .zero)
        let low = time - request.toleranceBefore
        let high = time + request.toleranceAfter
        var target = time
        var stepBack = MediaTime(value: 1, timescale: 1)
        while true {
            var fromStart = atStart && target <= .zero
            if !fromStart {
                if target <= .zero || !decoder.seek(toKeyframeAtOrBefore: ticks(target)) {
                    try reopen()
                    fromStart = true
                }
            }
            atStart = false
            switch try scan(time: time, low: low, high: high, fromStart: fromStart) {
            case .found(let frame, let frameTime):
                return (frame, frameTime)
            case .overshot(let first):
                release()
                // Land on an earlier keyframe: before the frame seen and before the last try.
                target = MediaTime.minimum(target, first) - stepBack
                stepBack = stepBack * 2
            case .nothing:
                guard !fromStart else {
                    throw CaptureError(.corruptFile, "no video frame could be decoded from the file", path: url.path)
                }
                target = target - stepBack
                stepBack = stepBack * 2
            }
        }
    }

    /// Unreferences the decoded frames (their buffers go back to the decoder).
    package func release() {
        av_frame_unref(current)
        av_frame_unref(held)
    }

    private enum Outcome {
        case found(UnsafeMutablePointer<AVFrame>, MediaTime)
        /// The first frame after the seek is shown after the time and outside the window.
        case overshot(MediaTime)
        /// No frame at all after the seek.
        case nothing
    }

    /// Decodes forward from the decoder's position and applies the rules of the type's comment.
    private func scan(time: MediaTime, low: MediaTime, high: MediaTime, fromStart: Bool) throws(CaptureError) -> Outcome {
        var heldTime: MediaTime?
        var previous: MediaTime?
        var isFirst = true
        while try decoder.decode(into: current) {
            let frameTime = self.time(of: current, after: previous)
            previous = frameTime
            let inWindow = frameTime >= low && frameTime <= high
            if isFirst {
                isFirst = false
                if !fromStart, frameTime > time, !inWindow { return .overshot(frameTime) }
            }
            if inWindow { return .found(current, frameTime) }
            if frameTime > time {
                // Past the window: the frame on screen at `time`, else (nothing before it) this one.
                if let heldTime { return .found(held, heldTime) }
                return .found(current, frameTime)
            }
            av_frame_unref(held)
            av_frame_move_ref(held, current)
            heldTime = frameTime
        }
        if let heldTime { return .found(held, heldTime) }
        return .nothing
    }

    /// A still image (photo or cover art): the first picture, at time zero.
    private func picture() throws(CaptureError) -> (frame: UnsafeMutablePointer<AVFrame>, time: MediaTime) {
        if !atStart { try reopen() }
        atStart = false
        guard try decoder.decode(into: current) else {
            throw CaptureError(.corruptFile, "the picture could not be decoded", path: url.path)
        }
        return (current, .zero)
    }

    /// A frame's presentation time on the asset's timeline; a frame without a timestamp
    /// follows the previous one by a frame duration.
    private func time(of frame: UnsafeMutablePointer<AVFrame>, after previous: MediaTime?) -> MediaTime {
        let base = decoder.timeBase
        if let ticks = FileDecoder.timestamp(of: frame) {
            let (value, overflow) = ticks.multipliedReportingOverflow(by: Int64(base.num))
            if !overflow { return MediaTime(value: value, timescale: base.den) - origin }
        }
        guard let previous else { return .zero }
        let rate = decoder.stream.pointee.avg_frame_rate
        return previous + (rate.isPositive ? MediaTime(value: Int64(rate.den), timescale: rate.num) : MediaTime(value: 1, timescale: 30))
    }

    /// `time` on the asset's timeline as stream ticks, rounded down (so the keyframe found is
    /// at or before it).
    private func ticks(_ time: MediaTime) -> Int64 {
        let base = decoder.timeBase
        let scaled = (time + origin).convertScale(base.den, method: .roundTowardNegativeInfinity)
        guard scaled.isNumeric else { return scaled.isNegativeInfinity ? .min : .max }
        let num = Int64(base.num)
        let quotient = scaled.value / num
        return scaled.value % num < 0 ? quotient - 1 : quotient
    }
}
