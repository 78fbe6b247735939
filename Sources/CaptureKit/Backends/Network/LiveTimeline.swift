/// Capture times for the frames of a live stream on the monotonic clock, from the camera's
/// clocks and the times the frames arrived: the camera's timestamps keep the spacing it gave its
/// frames, arrival times anchor them to the machine's clock. A frame is never dated after it
/// arrived (the anchor moves earlier when one comes sooner than its predecessors implied), a
/// camera clock that steps back or a frame arriving more than ``resyncNanoseconds`` late (a
/// stall, a jump) starts a new anchor, and times never go backwards.
///
/// Two clocks anchor apart. The stream's timestamps start anywhere on each connection. The
/// camera's wall clock — what an RTSP camera's RTCP sender reports map them to (NTP) — goes on
/// across connections, so its anchor outlives a reconnection and frames after it are dated by
/// how long the camera says it was away. Neither needs the camera's clock set right: only its
/// steady rate is used, and the anchor holds the offset to this machine's.
struct LiveTimeline {
    /// How late a frame may arrive against its camera time before the stream is taken to have
    /// jumped (a camera's clock reset, a stall, a rewound source).
    static let resyncNanoseconds: Int64 = 1_000_000_000

    /// Arrival minus camera time on one clock, both nanoseconds: the least of them seen, the
    /// frame that travelled fastest.
    private struct Anchor {
        private(set) var offset: Int64?
        private var lastSource: Int64?

        /// The monotonic time of `source` on this clock, or nil when it re-anchors and the frame
        /// is dated by its arrival.
        mutating func date(_ source: Int64, arrival: Int64) -> Int64? {
            if let previous = lastSource, source < previous { offset = nil }
            lastSource = source
            if let offset, source + offset <= arrival, arrival - (source + offset) <= LiveTimeline.resyncNanoseconds {
                return source + offset
            }
            offset = arrival - source
            return nil
        }
    }

    private var stream = Anchor()
    private var camera = Anchor()
    private var last: Int64?

    /// Arrival (monotonic) minus the camera's wall-clock time, when the camera has said what its
    /// clock reads: its clock's lead over this machine's follows from it.
    var cameraClockOffset: Int64? { camera.offset }

    /// The capture time of a frame that arrived at `arrival` (monotonic nanoseconds), stamped
    /// `streamTime` nanoseconds by the stream and `cameraTime` (Unix nanoseconds on the
    /// camera's clock) when known; dated by its arrival when neither is.
    mutating func time(streamTime: Int64?, cameraTime: Int64?, arrival: Int64) -> Int64 {
        var time = arrival
        if let cameraTime {
            time = camera.date(cameraTime, arrival: arrival) ?? arrival
        } else if let streamTime {
            time = stream.date(streamTime, arrival: arrival) ?? arrival
        }
        if let last, time <= last { time = last + 1 }
        last = time
        return time
    }

    /// Forgets the stream clock's anchor: a new connection's timestamps start anywhere. The
    /// camera's wall clock goes on.
    mutating func restart() {
        stream = Anchor()
    }
}
