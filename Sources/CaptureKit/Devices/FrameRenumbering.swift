/// Frame numbers that run on across a device's return: a returned device (a V4L2 node, a
/// network camera's new connection) counts from 0 again, so its numbers are shifted past the
/// last frame before the loss plus the frames it could not capture while it was away (from
/// the timestamps).
struct FrameRenumbering {
    let frameDuration: Int64
    private var last: (number: UInt64, end: Int64)?
    private var offset: Int64 = 0
    private var resuming = false

    init(frameDuration: Int64) { self.frameDuration = frameDuration }

    mutating func resume() { resuming = true }

    /// The sample as delivered, and how many frames the gap before it stands for.
    mutating func number(_ sample: SampleBuffer) -> (SampleBuffer, missed: Int) {
        var missed = 0
        if resuming, let last {
            resuming = false
            let start = sample.presentationTimeStamp.nanoseconds ?? last.end
            if frameDuration > 0, start > last.end {
                missed = Int((Double(start - last.end) / Double(frameDuration)).rounded())
            }
            offset = Int64(last.number) + 1 + Int64(missed) - Int64(sample.sequenceNumber)
        }
        let numbered = offset == 0 ? sample : sample.renumbered(UInt64(Int64(sample.sequenceNumber) + offset))
        last = (numbered.sequenceNumber, (numbered.presentationTimeStamp + numbered.duration).nanoseconds ?? 0)
        return (numbered, missed)
    }
}
