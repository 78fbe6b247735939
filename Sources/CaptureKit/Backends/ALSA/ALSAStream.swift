import Glibc
import Synchronization

/// The capture thread of one ALSA PCM: waits for a period, reads it into a pooled buffer,
/// times it on the monotonic clock (``ALSATimeline``) and delivers it. Overruns are recovered
/// with `snd_pcm_recover`, counted, and reported as dropped frames — never silently.
final class ALSAStream: DeviceStream {
    /// The period asked of the PCM: one read's worth, so the capture latency (10 ms).
    static let periodDuration = MediaTime(value: 1, timescale: 100)
    /// The buffer asked of the PCM, in periods: room for the thread to be late without an xrun.
    static let periods = 10

    private let worker: WorkerThread

    /// Opens and configures `pcmName` for `format` on the calling thread (so format and device
    /// errors are thrown by `startStream`), then captures on a thread of its own.
    init(pcmName: String, format: AudioFormat, sink: StreamSink, counters: ALSAStreamCounters) throws(CaptureError) {
        let pcm = try ALSAPCM(name: pcmName)
        let periodFrames = max(32, format.sampleRate / Int(Self.periodDuration.timescale))
        let geometry = try pcm.configure(format, periodFrames: periodFrames, periods: Self.periods)
        try pcm.start()
        let box = PCMBox(pcm)
        worker = WorkerThread(name: "CaptureKit.alsa") { thread in
            Self.run(thread, pcm: box.take(), format: format, geometry: geometry, sink: sink, counters: counters)
        }
    }

    func stop() { worker.stop() }

    private static func run(_ thread: WorkerThread, pcm: ALSAPCM?, format: AudioFormat, geometry: ALSAPCM.Geometry,
                            sink: StreamSink, counters: ALSAStreamCounters) {
        guard let pcm else { return }
        let pool = StoragePool(blockSize: geometry.periodFrames * format.bytesPerFrame, maximumIdle: 16)
        var timeline = ALSATimeline(rate: format.sampleRate, bufferFrames: geometry.bufferFrames)
        let rate = format.sampleRate
        var xrunPending = false
        var sequence: UInt64 = 0
        while !thread.isStopping {
            let stall = counters.stall.exchange(0, ordering: .relaxed)
            if stall > 0 { MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + Int64(stall) * 1_000_000) }
            // A bounded wait, so `stop()` is noticed within 50 ms even when no data comes.
            let ready = pcm.wait(milliseconds: 50)
            if ready == 0 { continue }
            let storage: MediaStorage
            do { storage = try pool.take() } catch {
                sink.event(.failed(error))
                return
            }
            let result = ready < 0 ? Int(ready) : pcm.read(into: storage.bytes, frames: geometry.periodFrames)
            if result == -Int(EAGAIN) || result == 0 { continue }
            if result < 0 {
                let code = Int32(result)
                if code == -ENODEV {
                    // The card went away (a USB microphone pulled out).
                    sink.event(.disconnected)
                    return
                }
                guard code == -EPIPE || code == -ESTRPIPE || code == -EINTR else {
                    sink.event(.failed(ALSA.error(code, "snd_pcm_readi", pcm: pcm.name)))
                    return
                }
                counters.xruns.add(1, ordering: .relaxed)
                xrunPending = true
                let recovered = pcm.recover(from: code)
                if recovered < 0 {
                    sink.event(.failed(ALSA.error(recovered, "snd_pcm_recover", pcm: pcm.name)))
                    return
                }
                continue
            }
            let now = ALSATimeline.frames(nanoseconds: MonotonicClock.nanoseconds(), rate: rate)
            let placement = timeline.place(count: result, now: now, delay: pcm.delay() ?? 0, afterXrun: xrunPending)
            if xrunPending || placement.gapFrames > 0 {
                // Reported in periods, like a camera reports frames; at least one per xrun.
                let lost = placement.gapFrames
                counters.lostFrames.add(Int(lost), ordering: .relaxed)
                sink.event(.droppedFrames(count: max(1, Int((lost + Int64(geometry.periodFrames) - 1) / Int64(geometry.periodFrames)))))
                xrunPending = false
            }
            if placement.dueFrame > now {
                MonotonicClock.sleep(untilNanoseconds: ALSATimeline.nanoseconds(frames: placement.dueFrame, rate: rate))
            }
            let buffer = AudioBuffer(format: format, frameCount: result, storage: storage)
            sink.deliver(SampleBuffer(media: .audio(buffer),
                                      presentationTimeStamp: MediaTime(value: placement.presentationFrame, timescale: Int32(rate)),
                                      duration: MediaTime(value: Int64(result), timescale: Int32(rate)),
                                      sequenceNumber: sequence))
            sequence += UInt64(result)
        }
    }

    /// Hands the PCM, opened on the caller's thread, to the capture thread, which takes it out
    /// once and is its only user from then on (hence unchecked); the PCM closes when the thread's
    /// loop ends, before `stop()` returns, so the device can be opened again at once.
    private final class PCMBox: @unchecked Sendable {
        private var pcm: ALSAPCM?
        init(_ pcm: ALSAPCM) { self.pcm = pcm }
        func take() -> ALSAPCM? {
            defer { pcm = nil }
            return pcm
        }
    }
}
