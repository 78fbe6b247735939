/// How a sound server's audio reaches the session, whichever route reads it (libpulse's
/// ``PulseCaptureStream`` or PipeWire's native ``PipeWireAudioStream``): each read is placed on
/// one ``AudioTimeline`` with a sound server's policy and handed over in pooled blocks of at
/// most 20 ms, with gaps and lost blocks reported as dropped frames.
///
/// Used on one thread at a time (the route's reading thread).
struct SoundServerDelivery {
    let format: AudioFormat
    private var timeline: AudioTimeline
    private let pool: StoragePool
    private let framesPerBlock: Int

    init(format: AudioFormat) {
        self.format = format
        timeline = AudioTimeline(rate: format.sampleRate, policy: .soundServer(rate: format.sampleRate))
        framesPerBlock = max(1, format.sampleRate / 50)
        pool = StoragePool(blockSize: framesPerBlock * format.bytesPerFrame, maximumIdle: 64)
    }

    /// Delivers `frames` frames read at `read` whose first was captured at `measuredStart`
    /// (monotonic nanoseconds).
    mutating func deliver(_ data: UnsafeRawPointer, frames: Int, measuredStart: Int64, read: Int64, to sink: StreamSink) {
        let placement = timeline.place(frames: frames, measuredStartNanoseconds: measuredStart, readNanoseconds: read)
        if placement.gap > 0 { sink.event(.droppedFrames(count: Int(placement.gap))) }
        var offset = 0
        while offset < frames {
            let count = min(framesPerBlock, frames - offset)
            let storage: MediaStorage
            do {
                storage = try pool.take()
            } catch {
                sink.event(.droppedFrames(count: frames - offset))
                return
            }
            storage.bytes.copyMemory(from: data + offset * format.bytesPerFrame, byteCount: count * format.bytesPerFrame)
            let buffer = AudioBuffer(format: format, frameCount: count, storage: storage)
            let start = placement.start + Int64(offset)
            sink.deliver(SampleBuffer(media: .audio(buffer), presentationTimeStamp: timeline.time(ofSample: start),
                                      duration: buffer.duration, sequenceNumber: UInt64(placement.sequence + Int64(offset))))
            offset += count
        }
    }

    /// The server lost `frames` frames here: the next read starts after them.
    mutating func skip(frames: Int, to sink: StreamSink) {
        timeline.skip(frames: frames)
        sink.event(.droppedFrames(count: frames))
    }

    /// Capture starts again (the source came back): the next read sets the position anew.
    mutating func restart() {
        timeline.restart()
    }
}
