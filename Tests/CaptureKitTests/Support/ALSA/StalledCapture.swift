import Foundation
import Synchronization
import Testing
@testable import CaptureKit

/// Captures from an ALSA PCM, makes the capture thread sleep once (as if it was not scheduled:
/// ``StallingPCM`` sleeps in the wait before a read), and reports what the stream and the
/// session's output saw.
struct StalledCapture {
    var lostFrames: Int
    /// Overruns the stream recovered from after the stall was armed.
    var xruns: Int
    /// Jumps between consecutive buffers' timestamps (seconds), where they did not join.
    var gaps: [Double]
    var drops: [DroppedFrame]
    /// Every buffer delivered, in order.
    var buffers: [ReceivedSample]
    /// Samples and drops in the order the delegate heard them.
    var log: [DeliveryEvent] = []

    static func run(pcm: String, stallMilliseconds: Int, expectDrop: Bool) async throws -> StalledCapture {
        let stall = StallingPCM.Switch()
        let backend = try ALSABackend(pcmName: pcm, localizedName: "Stalling \(pcm)", open: { (name) throws(CaptureError) in
            StallingPCM(try ALSAPCM(name: name), stall: stall)
        })
        let microphone = CaptureDevice(backend: backend)
        let (session, _, recorder) = try ALSACapture.makeSession(microphone)
        try await session.start()
        defer { try? session.stopRunning() }
        #expect(await recorder.samples.wait(forCount: 30, timeout: .seconds(30)))
        let lostBefore = backend.counters.lostFrames.load(ordering: .relaxed)
        let xrunsBefore = backend.counters.xruns.load(ordering: .relaxed)
        stall.milliseconds.store(stallMilliseconds, ordering: .relaxed)
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
                              xruns: backend.counters.xruns.load(ordering: .relaxed) - xrunsBefore,
                              gaps: jumps.filter { $0 != 0 }, drops: recorder.drops.items, buffers: samples, log: recorder.log.items)
    }
}

/// A real PCM whose capture thread, once armed with a number of milliseconds, sleeps that long
/// before its next wait: the thread a busy machine did not schedule in time.
final class StallingPCM: ALSACaptureIO {
    /// Arms the stall: milliseconds to sleep before the next wait, then 0 again.
    final class Switch: Sendable {
        let milliseconds = Atomic<Int>(0)
    }

    private let pcm: any ALSACaptureIO
    private let stall: Switch

    init(_ pcm: any ALSACaptureIO, stall: Switch) {
        self.pcm = pcm
        self.stall = stall
    }

    var name: String { pcm.name }
    func supportedFormats() -> [AudioFormat] { pcm.supportedFormats() }
    func configure(_ format: AudioFormat, periodFrames: Int, periods: Int) throws(CaptureError) -> ALSAPCM.Geometry {
        try pcm.configure(format, periodFrames: periodFrames, periods: periods)
    }
    func start() throws(CaptureError) { try pcm.start() }
    func wait(milliseconds: Int32) -> Int32 {
        let sleep = stall.milliseconds.exchange(0, ordering: .relaxed)
        if sleep > 0 { MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + Int64(sleep) * 1_000_000) }
        return pcm.wait(milliseconds: milliseconds)
    }
    func read(into bytes: UnsafeMutableRawPointer, frames: Int) -> Int { pcm.read(into: bytes, frames: frames) }
    var isDisconnected: Bool { pcm.isDisconnected }
    func delay() -> Int? { pcm.delay() }
    func recover(from error: Int32) -> Int32 { pcm.recover(from: error) }
}
