/// The thread of a file-backed device: reads samples from a ``FileSampleReader`` and delivers
/// them with timestamps `start + file time` on the monotonic clock.
///
/// Real-time pacing waits for absolute deadlines, like ``VirtualStream``: a sample is delivered
/// once its whole span has passed (`start + time + duration`), as a camera delivers a frame
/// after exposing it, so pacing never drifts and a late sample is sent at once, never dropped.
/// Unpaced streams deliver as fast as they decode, with the same timestamps. When looping,
/// each pass starts exactly where the previous one ended, so timestamps keep increasing, audio
/// stays sample-contiguous and sequence numbers keep counting.
final class FileStream: DeviceStream {
    typealias OpenReader = @Sendable () throws(CaptureError) -> any FileSampleReader

    private let worker: WorkerThread

    /// Starts delivering from `first` (already open) on a new thread; `open` makes the reader of
    /// each further pass when looping.
    init(name: String, first: any FileSampleReader, options: FileDeviceOptions, clock: FileClock,
         sink: StreamSink, open: @escaping OpenReader) {
        worker = WorkerThread(name: name) { thread in
            let origin = clock.start()
            defer { clock.stop() }
            Self.run(thread, first: first, options: options, originNanoseconds: origin, sink: sink, open: open)
        }
    }

    func stop() { worker.stop() }

    private static func run(_ thread: WorkerThread, first: any FileSampleReader, options: FileDeviceOptions,
                            originNanoseconds: Int64, sink: StreamSink, open: OpenReader) {
        var reader = first
        let scale = reader.timescale
        // The start in the reader's timescale, rounded up so no sample is stamped before it.
        let origin = MediaTime(value: originNanoseconds, timescale: 1_000_000_000)
            .convertScale(scale, method: .roundTowardPositiveInfinity).value
        var passOffset: Int64 = 0      // where the current pass starts on the stream's timeline
        var passBase: Int64? = 0       // file time that maps to `passOffset` (the first pass keeps the file's own offset)
        var passEnd: Int64 = 0         // end of the latest sample of this pass, relative to `passOffset`
        var passCount = 0              // samples delivered in this pass
        var lastPTS = Int64.min
        var sequence: UInt64 = 0
        while !thread.isStopping {
            let next: FileSample?
            do {
                next = try reader.next()
            } catch {
                sink.event(.failed(error))
                return
            }
            guard let sample = next else {
                guard options.looping, passCount > 0 else {
                    sink.event(.endOfStream)
                    return
                }
                passOffset += passEnd
                (passBase, passEnd, passCount) = (nil, 0, 0)
                do {
                    reader = try open()
                } catch {
                    sink.event(.failed(error))
                    return
                }
                continue
            }
            let base = passBase ?? sample.time
            passBase = base
            let relative = max(0, sample.time - base)
            // Strictly increasing even for files whose timestamps are not.
            let pts = max(origin + passOffset + relative, lastPTS &+ 1)
            lastPTS = pts
            passEnd = max(passEnd, pts - origin - passOffset + sample.duration)
            passCount += 1
            let start = MediaTime(value: pts, timescale: scale)
            let duration = MediaTime(value: sample.duration, timescale: scale)
            if options.pacing == .realTime, let due = (start + duration).nanoseconds {
                thread.sleep(untilNanoseconds: due)
                if thread.isStopping { return }
            }
            sink.deliver(SampleBuffer(media: sample.media, presentationTimeStamp: start, duration: duration, sequenceNumber: sequence))
            sequence += UInt64(sample.length)
        }
    }
}
