import Glibc
import Synchronization

/// The capture thread of one ALSA PCM: waits for a period, reads it into a pooled buffer,
/// times it on the monotonic clock (``AudioTimeline``, with a card's policy) and delivers it.
/// Overruns are recovered with `snd_pcm_recover`, counted, and reported as dropped frames —
/// never silently.
///
/// The stream outlives its card: when the card goes away (ENODEV: a USB microphone pulled out,
/// a driver unbound) it reports `.disconnected`, closes the PCM (the kernel frees a card, and
/// lets the same card come back under its name, only once every handle is closed) and opens
/// the PCM again every ``returnPollMilliseconds`` until it is back; then it captures again in
/// the same format and reports `.reconnected`. The audio missed meanwhile is a gap of the
/// timeline, reported as dropped periods, and the sequence numbers run on.
final class ALSAStream: DeviceStream {
    /// The period asked of the PCM: one read's worth, so the capture latency (10 ms).
    static let periodDuration = MediaTime(value: 1, timescale: 100)
    /// The buffer asked of the PCM, in periods: room for the thread to be late without an xrun.
    static let periods = 10

    private let worker: WorkerThread

    /// An open, started PCM and what it agreed to.
    private struct Capture {
        var pcm: any ALSACaptureIO
        var geometry: ALSAPCM.Geometry
    }

    /// Opens and configures `pcmName` for `format` on the calling thread (so format and device
    /// errors are thrown by `startStream`), then captures on a thread of its own.
    init(pcmName: String, format: AudioFormat, sink: StreamSink, counters: ALSAStreamCounters, open: @escaping ALSAOpener) throws(CaptureError) {
        let box = ThreadHandOff(try Self.open(pcmName, format: format, with: open))
        worker = WorkerThread(name: "CaptureKit.alsa") { thread in
            var next = box.take()
            var timeline: AudioTimeline?
            var sequence: UInt64 = 0
            while next != nil {
                // The capture moves into `run`: once it returns, no reference to the PCM is left
                // here, so it is closed while the card is away.
                guard Self.run(thread, &next, format: format, timeline: &timeline, sequence: &sequence,
                               sink: sink, counters: counters) else { return }
                sink.event(.disconnected)
                guard let back = Self.waitForReturn(thread, sink: sink, reopen: { () throws(CaptureError) in
                    try Self.reopen(pcmName, format: format, with: open)
                }) else { return }
                next = back
                sink.event(.reconnected)
            }
        }
    }

    func stop() { worker.stop() }

    /// Opens, configures and starts the PCM.
    private static func open(_ pcmName: String, format: AudioFormat, with open: ALSAOpener) throws(CaptureError) -> Capture {
        let pcm = try open(pcmName)
        let periodFrames = max(32, format.sampleRate / Int(periodDuration.timescale))
        let geometry = try pcm.configure(format, periodFrames: periodFrames, periods: periods)
        try pcm.start()
        return Capture(pcm: pcm, geometry: geometry)
    }

    /// The capture again if the card is back, nil while it is away; an error when it is back
    /// but refuses the format, or is busy.
    private static func reopen(_ pcmName: String, format: AudioFormat, with open: ALSAOpener) throws(CaptureError) -> Capture? {
        do {
            return try Self.open(pcmName, format: format, with: open)
        } catch where error.code == .deviceNotFound || error.code == .deviceDisconnected {
            return nil
        }
    }

    /// Takes the capture out of `next` and captures until stopped (false) or the card goes away
    /// (true); a fatal error is reported and ends the stream (false). The timeline and the
    /// numbering carry over a return, so the time the card was away is a gap of one timeline.
    private static func run(_ thread: WorkerThread, _ next: inout Capture?, format: AudioFormat, timeline: inout AudioTimeline?,
                            sequence: inout UInt64, sink: StreamSink, counters: ALSAStreamCounters) -> Bool {
        guard let capture = next.take() else { return false }
        let (pcm, geometry) = (capture.pcm, capture.geometry)
        let pool = StoragePool(blockSize: geometry.periodFrames * format.bytesPerFrame, maximumIdle: 16)
        let rate = format.sampleRate
        var placing = timeline ?? AudioTimeline(rate: rate, policy: .card(rate: rate, bufferFrames: geometry.bufferFrames))
        defer { timeline = placing }
        var xrunPending = false
        while !thread.isStopping {
            // A bounded wait, so `stop()` is noticed within 50 ms even when no data comes.
            let ready = pcm.wait(milliseconds: 50)
            if ready == 0 { continue }
            let storage: MediaStorage
            do { storage = try pool.take() } catch {
                sink.event(.failed(error))
                return false
            }
            let result = ready < 0 ? Int(ready) : pcm.read(into: storage.bytes, frames: geometry.periodFrames)
            if result == -Int(EAGAIN) || result == 0 { continue }
            if result < 0 {
                let code = Int32(result)
                if code == -ENODEV || pcm.isDisconnected { return true }   // the card went away
                guard code == -EPIPE || code == -ESTRPIPE || code == -EINTR else {
                    sink.event(.failed(ALSA.error(code, "snd_pcm_readi", pcm: pcm.name)))
                    return false
                }
                counters.xruns.add(1, ordering: .relaxed)
                xrunPending = true
                let recovered = pcm.recover(from: code)
                if recovered < 0 {
                    if recovered == -ENODEV || pcm.isDisconnected { return true }
                    sink.event(.failed(ALSA.error(recovered, "snd_pcm_recover", pcm: pcm.name)))
                    return false
                }
                continue
            }
            let now = MonotonicClock.samples(atNanoseconds: MonotonicClock.nanoseconds(), rate: rate, rounding: .roundTowardNegativeInfinity)
            let placement = placing.place(frames: result, readAt: now, delay: pcm.delay() ?? 0, afterLoss: xrunPending)
            if xrunPending || placement.gap > 0 {
                // Reported in periods, like a camera reports frames; at least one per xrun.
                let lost = placement.gap
                counters.lostFrames.add(Int(lost), ordering: .relaxed)
                sink.event(.droppedFrames(count: max(1, Int((lost + Int64(geometry.periodFrames) - 1) / Int64(geometry.periodFrames)))))
                xrunPending = false
            }
            if placement.due > now {
                thread.sleep(untilNanoseconds: MonotonicClock.nanoseconds(atSample: placement.due, rate: rate))
                // Stopped meanwhile: a buffer whose capture has not ended is never delivered.
                if thread.isStopping { break }
            }
            let buffer = AudioBuffer(format: format, frameCount: result, storage: storage)
            sink.deliver(SampleBuffer(media: .audio(buffer),
                                      presentationTimeStamp: placing.time(ofSample: placement.start),
                                      duration: MediaTime(value: Int64(result), timescale: Int32(rate)),
                                      sequenceNumber: sequence))
            sequence += UInt64(result)
        }
        return false
    }
}
