/// Capture times for the frames of a live stream on the monotonic clock, from the stream's own
/// timestamps and the times the frames arrived: the stream's clock keeps the spacing the camera
/// gave its frames, arrival times anchor it to the machine's clock. A frame is never dated after
/// it arrived (the anchor moves earlier when one comes sooner than its predecessors implied),
/// a stream clock that steps back or a frame arriving more than ``resyncNanoseconds`` late
/// (a stall, a jump) starts a new anchor, and times never go backwards.
struct LiveTimeline {
    /// How late a frame may arrive against its stream time before the stream is taken to have
    /// jumped (a camera's clock reset, a stall, a rewound source).
    static let resyncNanoseconds: Int64 = 1_000_000_000

    /// Arrival minus stream time, both nanoseconds.
    private var offset: Int64?
    private var last: Int64?
    private var lastStreamTime: Int64?

    /// The capture time of a frame that arrived at `arrival` (monotonic nanoseconds) stamped
    /// `streamTime` nanoseconds by the stream (nil: unstamped, dated by its arrival).
    mutating func time(streamTime: Int64?, arrival: Int64) -> Int64 {
        var time = arrival
        if let streamTime {
            if let previous = lastStreamTime, streamTime < previous { offset = nil }
            lastStreamTime = streamTime
            if let offset, streamTime + offset <= arrival, arrival - (streamTime + offset) <= Self.resyncNanoseconds {
                time = streamTime + offset
            } else {
                offset = arrival - streamTime
            }
        }
        if let last, time <= last { time = last + 1 }
        last = time
        return time
    }

    /// Forgets the anchor: a new connection's stream clock starts anywhere.
    mutating func restart() {
        offset = nil
        lastStreamTime = nil
    }
}
