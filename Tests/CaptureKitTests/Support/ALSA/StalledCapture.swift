import Foundation
import Testing
@testable import CaptureKit

/// Captures from an ALSA PCM, makes the capture thread sleep once (as if it was not scheduled),
/// and reports what the stream and the session's output saw.
struct StalledCapture {
    var lostFrames: Int
    /// Jumps between consecutive buffers' timestamps (seconds), where they did not join.
    var gaps: [Double]
    var drops: [DroppedFrame]
    /// Every buffer delivered, in order.
    var buffers: [ReceivedSample]
    /// Samples and drops in the order the delegate heard them.
    var log: [DeliveryEvent] = []

    static func run(pcm: String, stallMilliseconds: Int, expectDrop: Bool) async throws -> StalledCapture {
        let microphone = try CaptureDevice.alsaMicrophone(pcm: pcm)
        let backend = try #require(microphone.backend as? ALSABackend)
        let (session, _, recorder) = try ALSACapture.makeSession(microphone)
        try await session.start()
        defer { try? session.stopRunning() }
        #expect(await recorder.samples.wait(forCount: 30, timeout: .seconds(30)))
        let lostBefore = backend.counters.lostFrames.load(ordering: .relaxed)
        backend.counters.stall.store(stallMilliseconds, ordering: .relaxed)
        if expectDrop {
            #expect(await recorder.drops.wait(forCount: 1, timeout: .seconds(30)), "the loss is reported")
        }
        // Enough audio after the stall to see that capture went on (and any drop came through).
        let seen = recorder.samples.count
        let wanted = seen + 30 + stallMilliseconds / 10
        #expect(await recorder.samples.wait(forCount: wanted, timeout: .seconds(30)), "capture goes on")
        try session.stopRunning()
        let samples = recorder.samples.items
        let jumps = zip(samples, samples.dropFirst()).map { previous, next in
            (next.sample.presentationTimeStamp - (previous.sample.presentationTimeStamp + previous.sample.duration)).seconds
        }
        return StalledCapture(lostFrames: backend.counters.lostFrames.load(ordering: .relaxed) - lostBefore,
                              gaps: jumps.filter { $0 != 0 }, drops: recorder.drops.items, buffers: samples, log: recorder.log.items)
    }
}
