import Foundation
@testable import CaptureKit

/// The timing promise for audio from a sound server, as a delegate received it: a buffer's time
/// is its capture time, never its delivery time, and it stays on the monotonic clock.
///
/// - Causality: no buffer arrives before its last sample was captured (its time plus its
///   duration), exactly.
/// - Re-alignments are small: where a buffer does not start where the previous one ended
///   although no sample was lost (sample numbers run on), the step is the timeline following the
///   source's clock, smaller than a sound server's ``AudioTimeline`` tolerance (40 ms); lost audio
///   moves time and sample numbers alike.
/// - No drift: the fastest delivery (arrival minus capture end) is as fast at the end of a run as
///   at its start. Each window of a run has some buffer that was read promptly, so its fastest
///   delivery is the pipeline's fixed minimum plus however far the timestamps strayed from the
///   monotonic clock; a timeline that failed to follow the source (one that delivers fewer samples
///   than time passes, as PipeWire's pw-cat tone does under load) would drift here. The
///   re-alignments' total is what the source's clock did (``sourceDrift``): the same fastest
///   deliveries, measured against the sample count instead of the timestamps.
///
/// How late buffers arrive is the machine's business and is not checked.
struct AudioCaptureTimes: Sendable, CustomStringConvertible {
    /// Buffers that arrived before their last sample was captured.
    private(set) var early: [String] = []
    /// Re-alignments too large to be one (they should have been reported as lost audio).
    private(set) var jumps: [Double] = []
    /// Re-alignments (seconds, later when positive) and their sum.
    private(set) var steps: [Double] = []
    var correction: Double { steps.reduce(0, +) }
    /// Fastest delivery in the first and in the last window, seconds.
    private(set) var firstLag = Double.nan, lastLag = Double.nan
    /// The same windows' fastest delivery against the first buffer's time plus the samples
    /// captured since: how far the source's clock moved against the monotonic clock.
    private(set) var sourceDrift = Double.nan

    /// How far the timestamps moved against the monotonic clock over the run, seconds.
    var drift: Double { lastLag - firstLag }

    /// `buffers` as delivered, in order; `window` seconds at each end of the run (after the first
    /// `skip` seconds, while the server links the stream).
    init(_ buffers: [ReceivedSample], window: Double = 5, skip: Double = 0.5) {
        guard let first = buffers.first, let rate = first.sample.audioBuffer?.format.sampleRate else { return }
        for buffer in buffers {
            if let end = (buffer.sample.presentationTimeStamp + buffer.sample.duration).nanoseconds, buffer.arrival < end {
                early.append("buffer \(buffer.sequenceNumber) arrived \(Double(end - buffer.arrival) / 1e6) ms before its capture ended")
            }
        }
        for (previous, next) in zip(buffers, buffers.dropFirst()) {
            let time = (next.sample.presentationTimeStamp - (previous.sample.presentationTimeStamp + previous.sample.duration)).seconds
            let samples = Double(Int64(next.sequenceNumber) - Int64(previous.sequenceNumber) - Int64(previous.sample.audioBuffer?.frameCount ?? 0))
            let step = time - samples / Double(rate)
            guard abs(step) > 0.5 / Double(rate) else { continue }
            if abs(step) >= 0.040 { jumps.append(step) } else { steps.append(step) }
        }
        // Per buffer: seconds from capture end to arrival, by timestamp and by sample count.
        let start = first.sample.presentationTimeStamp.seconds
        let firstNumber = first.sequenceNumber
        var rows: [(end: Double, lag: Double, countedLag: Double)] = []
        for buffer in buffers {
            let end = (buffer.sample.presentationTimeStamp + buffer.sample.duration).seconds
            let counted = start + Double(buffer.sequenceNumber - firstNumber + UInt64(buffer.sample.audioBuffer?.frameCount ?? 0)) / Double(rate)
            let arrival = Double(buffer.arrival) / 1e9
            rows.append((end, arrival - end, arrival - counted))
        }
        guard let last = rows.last?.end, let begin = rows.first.map({ $0.end + skip }), last - begin >= 2 * window else { return }
        let head = rows.filter { $0.end >= begin && $0.end < begin + window }, tail = rows.filter { $0.end > last - window }
        firstLag = head.map(\.lag).min() ?? .nan
        lastLag = tail.map(\.lag).min() ?? .nan
        sourceDrift = (tail.map(\.countedLag).min() ?? .nan) - (head.map(\.countedLag).min() ?? .nan)
    }

    /// Every buffer arrived after its capture ended.
    var isCausal: Bool { early.isEmpty }

    var description: String {
        let ms = { (seconds: Double) in String(format: "%.2f ms", seconds * 1000) }
        return "\(steps.count) re-alignments totalling \(ms(correction)) for a source drift of \(ms(sourceDrift)); "
            + "fastest delivery \(ms(firstLag)) at the start, \(ms(lastLag)) at the end"
            + (jumps.isEmpty ? "" : "; unreported jumps \(jumps.prefix(5))")
            + (early.isEmpty ? "" : "; \(early.count) early: \(early.prefix(3).joined(separator: "; "))")
    }
}
