import Testing
@testable import CaptureKit

/// Audio held back for video is handed on exactly once, in order, each frame with its capture
/// time, and a buffer cut by a video frame's end is handed on in place, never copied.
@Suite("AudioBacklog")
struct AudioBacklogTests {
    private static let rate = 48_000
    private static let format = AudioFormat(sampleRate: rate, channelCount: 1, sampleFormat: .s16)
    /// Capture time of frame 0 (5 s), in frames of the rate as ALSA stamps it, so a limit at
    /// a frame's time is exactly that frame's start.
    private static let origin = MediaTime(value: 5 * Int64(rate), timescale: Int32(rate))

    /// A buffer of `count` frames whose samples are their frame numbers from `first` on,
    /// stamped with its capture time.
    private func ramp(from first: Int, count: Int) throws -> SampleBuffer {
        let buffer = try AudioBuffer(format: Self.format, frameCount: count)
        buffer.withUnsafeMutableBytes { raw in
            for index in 0..<count { raw.storeBytes(of: Int16(first + index), toByteOffset: index * 2, as: Int16.self) }
        }
        return SampleBuffer(media: .audio(buffer), presentationTimeStamp: time(ofFrame: first), duration: buffer.duration)
    }

    private func time(ofFrame frame: Int) -> MediaTime {
        Self.origin + MediaTime(value: Int64(frame), timescale: Int32(Self.rate))
    }

    /// What one drain handed on: the frame numbers in order, and per call the buffer, the
    /// frame number its start time says and the frame number its first sample holds.
    private struct Handed {
        var frames: [Int] = []
        var calls: [(buffer: AudioBuffer, startFrame: Int64, firstFrame: Int)] = []
    }

    private func drain(_ backlog: inout AudioBacklog, upTo limit: MediaTime) -> Handed {
        var handed = Handed()
        backlog.drain(upTo: limit) { buffer, frames, start in
            let values = buffer.withUnsafeBytes { raw in
                frames.map { Int(raw.load(fromByteOffset: Int($0) * 2, as: Int16.self)) }
            }
            handed.frames += values
            handed.calls.append((buffer, (start - Self.origin).convertScale(Int32(Self.rate)).value, values.first ?? -1))
        }
        return handed
    }

    @Test func framesCutByVideoFrameEndsAreHandedOnOnceInOrderWithTheirTimes() throws {
        var backlog = AudioBacklog()
        let samples = try stride(from: 0, to: 4_800, by: 480).map { try ramp(from: $0, count: 480) }
        samples.forEach { backlog.append($0) }
        // Video frames at 30 fps end every 1600 frames: each limit cuts a buffer in its middle.
        var all: [Int] = []
        for end in [1_600, 3_200, 4_800] {
            let handed = drain(&backlog, upTo: time(ofFrame: end))
            #expect(handed.frames == Array(all.count..<end), "frames before \(end), each once")
            for call in handed.calls {
                #expect(call.startFrame == Int64(call.firstFrame), "a start time is its first frame's capture time")
            }
            all += handed.frames
        }
        #expect(all == Array(0..<4_800))
        #expect(backlog.entries.isEmpty)
    }

    @Test func aCutBufferWaitsInPlaceFromItsFirstUnwrittenFrame() throws {
        var backlog = AudioBacklog()
        let sample = try ramp(from: 0, count: 480)
        backlog.append(sample)
        let original = try #require(sample.audioBuffer)

        let first = drain(&backlog, upTo: time(ofFrame: 100))
        #expect(first.frames == Array(0..<100))
        let waiting = try #require(backlog.entries.first)
        #expect(waiting.buffer === original, "the cut buffer is kept, not copied")
        #expect(waiting.first == 100)
        #expect(waiting.count == 380)
        #expect(waiting.start == time(ofFrame: 100))
        #expect(backlog.oldestStart == time(ofFrame: 100))

        let rest = drain(&backlog, upTo: time(ofFrame: 1_000))
        #expect(rest.frames == Array(100..<480))
        #expect(rest.calls.count == 1)
        #expect(rest.calls.first?.buffer === original)
        #expect(rest.calls.first?.startFrame == 100)
        #expect(backlog.entries.isEmpty)
    }

    @Test func audioAfterTheLimitIsNotHandedOn() throws {
        var backlog = AudioBacklog()
        backlog.append(try ramp(from: 960, count: 480))
        #expect(drain(&backlog, upTo: time(ofFrame: 960)).calls.isEmpty)
        #expect(drain(&backlog, upTo: time(ofFrame: 500)).calls.isEmpty)
        #expect(backlog.entries.first?.first == 0)
        #expect(backlog.oldestStart == time(ofFrame: 960))
    }

    @Test func droppingForgetsTheOldestBuffer() throws {
        var backlog = AudioBacklog()
        backlog.append(try ramp(from: 0, count: 480))
        backlog.append(try ramp(from: 480, count: 480))
        backlog.dropOldest()
        #expect(backlog.oldestStart == time(ofFrame: 480))
        #expect(drain(&backlog, upTo: time(ofFrame: 2_000)).frames == Array(480..<960))
    }

    @Test func aFailureLeavesTheBufferItFailedOnWaiting() throws {
        struct Failure: Error {}
        var backlog = AudioBacklog()
        for first in [0, 480, 960] { backlog.append(try ramp(from: first, count: 480)) }
        var calls = 0
        var failed = false
        do throws(Failure) {
            try backlog.drain(upTo: time(ofFrame: 1_440)) { (_, _, _) throws(Failure) in
                calls += 1
                if calls == 2 { throw Failure() }
            }
        } catch {
            failed = true
        }
        #expect(failed)
        // The first buffer was handed on; the one that failed and the next still wait, whole.
        #expect(backlog.entries.map(\.start) == [time(ofFrame: 480), time(ofFrame: 960)])
        #expect(backlog.entries.map(\.first) == [0, 0])
    }
}
