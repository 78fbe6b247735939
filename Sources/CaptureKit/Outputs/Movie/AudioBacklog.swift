/// The audio a recording holds back until video has passed its time, in capture order.
///
/// A buffer written in part stays as it is: only where its waiting frames begin moves, so
/// holding audio back copies and allocates nothing per buffer (the encoder copies the frames
/// it is handed into its own FIFO). Knows nothing of encoders or files, so it is tested alone.
struct AudioBacklog: Sendable {
    /// One captured buffer's frames that are still waiting.
    struct Entry: Sendable {
        let buffer: AudioBuffer
        /// The buffer's first waiting frame; those before it were handed on.
        private(set) var first: Int
        /// Capture time of frame `first`.
        private(set) var start: MediaTime

        var rate: Int32 { Int32(buffer.format.sampleRate) }
        /// Frames still waiting.
        var count: Int64 { Int64(buffer.frameCount - first) }

        /// Hands on `frames` more frames. The start moves by the frames' duration, added to the
        /// previous start (not recomputed from the capture time), as a trimmed copy's
        /// timestamp did.
        fileprivate mutating func advance(by frames: Int64) {
            guard frames > 0 else { return }
            first += Int(frames)
            start = start + MediaTime(value: frames, timescale: rate)
        }
    }

    private(set) var entries: [Entry] = []

    /// Capture time of the oldest waiting frame.
    var oldestStart: MediaTime? { entries.first?.start }

    /// Holds `sample` back; a sample without audio is not kept.
    mutating func append(_ sample: SampleBuffer) {
        guard let buffer = sample.audioBuffer else { return }
        entries.append(Entry(buffer: buffer, first: 0, start: sample.presentationTimeStamp))
    }

    /// Forgets the oldest buffer (unwritten, as a loss).
    mutating func dropOldest() {
        if !entries.isEmpty { entries.removeFirst() }
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    /// Hands on, oldest first, the waiting frames that were captured before `limit`: calls
    /// `body` with each buffer, the frame indexes within it and the capture time of the first
    /// of them (never with none). What lies at or after `limit` keeps waiting.
    mutating func drain<Failure: Error>(upTo limit: MediaTime,
                                        _ body: (AudioBuffer, Range<Int64>, MediaTime) throws(Failure) -> Void) throws(Failure) {
        // Compacted in place: what stays moves to the front, so draining allocates nothing.
        var kept = 0
        var index = 0
        do throws(Failure) {
            while index < entries.count {
                var entry = entries[index]
                let end = entry.start + MediaTime(value: entry.count, timescale: entry.rate)
                let usable = RecordingTimeline.samples(before: limit, from: entry.start, count: entry.count, rate: entry.rate)
                if usable > 0 {
                    let first = Int64(entry.first)
                    try body(entry.buffer, first..<(first + usable), entry.start)
                }
                if usable < entry.count, end > limit {
                    entry.advance(by: usable)
                    entries[kept] = entry
                    kept += 1
                }
                index += 1
            }
        } catch {
            // The buffer `body` failed on and those after it stay as they were.
            entries.removeSubrange(kept..<index)
            throw error
        }
        entries.removeLast(entries.count - kept)
    }
}
