import Glibc

/// The thread of a virtual device: produces sample `n` at deadline `start + n × period`, on the
/// monotonic clock, until stopped. Frames that cannot be produced in time are skipped and
/// reported (a real camera drops them too); a simulated disconnection pauses production, and on
/// reconnection the samples the device would have made meanwhile are reported as skipped, so
/// timestamps stay on the same grid and sequence numbers count the gap.
final class VirtualStream: DeviceStream {
    typealias Produce = @Sendable (_ index: Int, _ pts: MediaTime, _ duration: MediaTime) throws(CaptureError) -> SampleBuffer
    private let worker: WorkerThread

    /// `maximumLateness` is how far behind the stream may fall before it skips samples (a
    /// camera's few queued buffers; a sound card's much longer buffer).
    init(name: String, connection: VirtualConnection, format: CaptureDevice.Format, device: DeviceDescriptor, pacing: DevicePacing,
         period: MediaTime, maximumLateness: MediaTime, sink: StreamSink, produce: @escaping Produce) {
        let lateness = maximumLateness.nanoseconds ?? 0
        worker = WorkerThread(name: name) { thread in
            Self.run(thread, connection: connection, refusal: { connection.refusal(of: format, device: device) }, pacing: pacing,
                     period: period, maximumLatenessNs: lateness, sink: sink, produce: produce)
        }
    }

    func stop() { worker.stop() }

    private static func run(_ thread: WorkerThread, connection: VirtualConnection, refusal: () -> CaptureError?, pacing: DevicePacing,
                            period: MediaTime, maximumLatenessNs: Int64, sink: StreamSink, produce: Produce) {
        // Timestamps are kept in a multiple of the period's own timescale so consecutive samples
        // are exactly one period apart (48 kHz audio stays sample-exact, 30 fps video
        // frame-exact). The multiple makes the grid at most a millisecond fine: the first
        // sample starts at the next tick of it, and on a grid of whole 1/30 s ticks that alone
        // held the first frame back by up to a frame interval.
        let scale = Self.gridTimescale(for: period)
        let period = period.convertScale(scale)
        var origin = MonotonicClock.now().convertScale(scale, method: .roundTowardPositiveInfinity).value
        var index = 0
        var wasConnected = true
        var refused = false
        while !thread.isStopping {
            if !connection.isConnected {
                if wasConnected { sink.event(.disconnected); wasConnected = false }
                refused = false
                thread.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000)
                continue
            }
            if !wasConnected {
                // Back, but perhaps not as it was: then it stays away for the session.
                if let error = refusal() {
                    if !refused { sink.event(.cannotResume(error)) }
                    refused = true
                    thread.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000)
                    continue
                }
                wasConnected = true
                sink.event(.reconnected)
                let now = MonotonicClock.now().convertScale(scale, method: .roundTowardPositiveInfinity).value
                if pacing == .realTime, period.value > 0 {
                    // Resume with the sample being captured now; what the gap held is reported.
                    let skipped = Int(max(0, (now - origin) / period.value - Int64(index)))
                    if skipped > 0 {
                        index += skipped
                        sink.event(.droppedFrames(count: skipped))
                    }
                } else {
                    // Unpaced: no time passes for the consumer; carry on from now.
                    origin = now - Int64(index) * period.value
                }
            }
            let pts = MediaTime(value: origin + Int64(index) * period.value, timescale: scale)
            if pacing == .realTime {
                // A sample is delivered once its whole span has been "captured".
                let due = (pts + period).nanoseconds ?? 0
                let now = MonotonicClock.nanoseconds()
                if now < due {
                    thread.sleep(untilNanoseconds: due)
                    if thread.isStopping { break }
                } else if let periodNs = period.nanoseconds, periodNs > 0, now - due > max(periodNs, maximumLatenessNs) {
                    // Like a real device's buffer queue: a short stall is caught up by
                    // delivering back to back; only a longer one loses samples.
                    let skipped = Int((now - due) / periodNs)
                    index += skipped
                    sink.event(.droppedFrames(count: skipped))
                    continue
                }
            }
            do {
                let sample = try produce(index, pts, period)
                sink.deliver(sample)
            } catch {
                sink.event(.failed(error))
                return
            }
            index += 1
        }
    }

    /// The period's timescale times the least whole number that makes one tick at most a
    /// millisecond (`1/30` s → 1020; 48 kHz stays 48000), kept within `Int32`.
    static func gridTimescale(for period: MediaTime) -> Int32 {
        let base = Int64(max(1, period.timescale))
        let multiple = (1000 + base - 1) / base
        return Int32(clamping: base * multiple)
    }
}
