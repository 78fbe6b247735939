import Foundation
import Testing
@testable import CaptureKit

/// The recording queue between device threads and the encoder thread, without a session: it is
/// bounded for a live device whatever the encoder does, and every sample it refuses is noted in
/// its place (one note per run), so the encoder thread can count exactly the ones inside the
/// recording.
@Suite("RecordingQueue", .excludable)
struct RecordingQueueTests {
    private static let frameDuration = MediaTime(value: 1, timescale: 30)

    private func frame(_ index: Int) throws -> SampleBuffer {
        SampleBuffer(media: .video(try PixelBuffer(width: 2, height: 2, pixelFormat: .nv12)),
                     presentationTimeStamp: Self.frameDuration * Int64(index), duration: Self.frameDuration, sequenceNumber: UInt64(index))
    }

    private func audio(_ index: Int) throws -> SampleBuffer {
        let buffer = try AudioBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16), frameCount: 480)
        return SampleBuffer(media: .audio(buffer), presentationTimeStamp: MediaTime(value: Int64(index) * 480, timescale: 48_000),
                            duration: buffer.duration)
    }

    /// Everything waiting, in order.
    private func drain(_ queue: RecordingQueue) -> [RecordingQueue.Item] {
        var items: [RecordingQueue.Item] = []
        while let item = queue.pop(before: Date()) { items.append(item) }
        return items
    }

    @Test func aStalledEncoderCannotMakeTheQueueGrow() throws {
        let queue = RecordingQueue()
        let capacity = RecordingQueue.videoCapacity
        // The encoder takes nothing for 1000 frames: the first `capacity` wait, the rest are refused.
        let results = try (0..<1000).map { queue.push(try frame($0), holdBack: false) }
        #expect(results.prefix(capacity).allSatisfy { $0 == .queued })
        #expect(results.dropFirst(capacity).allSatisfy { $0 == .full })
        let items = drain(queue)
        #expect(items.count == capacity + 1, "the queued frames and one note for all the refused ones, not one per frame")
        for (index, item) in items.prefix(capacity).enumerated() {
            guard case .sample(let sample) = item else { Issue.record("item \(index) is \(item), not a frame"); continue }
            #expect(sample.sequenceNumber == UInt64(index))
        }
        guard case .refused(let run)? = items.last else {
            Issue.record("the last item is \(String(describing: items.last)), not the refusals")
            return
        }
        #expect(run == RecordingQueue.Refusals(video: true, count: 1000 - capacity, first: Self.frameDuration * Int64(capacity),
                                               last: Self.frameDuration * 999, duration: Self.frameDuration))
        // The refused frames' capture times, as the encoder thread works them out.
        #expect((0..<run.count).map(run.time(at:)) == (capacity..<1000).map { Self.frameDuration * Int64($0) })
        #expect(queue.queuedVideoCount == 0)
    }

    @Test func refusalsKeepTheirPlaceAmongSamplesAndCommands() throws {
        let queue = RecordingQueue()
        for index in 0..<RecordingQueue.videoCapacity { _ = queue.push(try frame(index), holdBack: false) }
        let first = RecordingQueue.videoCapacity
        #expect(queue.push(try frame(first), holdBack: false) == .full)
        // Audio still has room: it is queued after the note, and the next refused frame joins it.
        #expect(queue.push(try audio(0), holdBack: false) == .queued)
        #expect(queue.push(try frame(first + 1), holdBack: false) == .full)
        // A command closes the run: the refusals after it are a run of their own.
        queue.push(.pause(at: Self.frameDuration * Int64(first + 2)))
        #expect(queue.push(try frame(first + 2), holdBack: false) == .full)
        let tail = drain(queue).dropFirst(RecordingQueue.videoCapacity)
        let shapes = tail.map { item -> String in
            switch item {
            case .refused(let run): return "refused \(run.count) from \(run.first.convertScale(30).value)"
            case .sample(let sample): return sample.mediaType == .audio ? "audio" : "video"
            case .pause: return "pause"
            default: return "other"
            }
        }
        #expect(shapes == ["refused 2 from \(first)", "audio", "pause", "refused 1 from \(first + 2)"])
    }

    @Test func aDevicesSkipsAndAClosedQueue() throws {
        let queue = RecordingQueue()
        _ = queue.push(try frame(0), holdBack: false)
        queue.push(.skipped(count: 3, video: true))
        _ = queue.push(try frame(4), holdBack: false)
        let items = drain(queue)
        #expect(items.count == 3)
        if case .skipped(let count, let video) = items[1] { #expect(count == 3 && video) } else { Issue.record("\(items[1])") }
        queue.close()
        #expect(queue.push(try frame(5), holdBack: false) == .closed)
        queue.push(.skipped(count: 1, video: true))
        #expect(drain(queue).isEmpty, "nothing is queued once the recording is over")
    }
}
