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
///
/// A camera's pictures and sound share the anchors: both are timed by the stream (or the
/// camera's clock), so one offset keeps them as aligned as the camera sent them, whichever
/// travelled faster. Each track goes forward on its own (the demuxer interleaves them).
struct LiveTimeline {
    /// The kinds of frame a stream dates.
    enum Track: Sendable {
        case video, audio
    }

    /// One value per track.
    private struct PerTrack<Value> {
        var video: Value
        var audio: Value

        subscript(track: Track) -> Value {
            get { track == .video ? video : audio }
            set { if track == .video { video = newValue } else { audio = newValue } }
        }
    }

    /// How late a frame may arrive against its camera time before the stream is taken to have
    /// jumped (a camera's clock reset, a stall, a rewound source).
    static let resyncNanoseconds: Int64 = 1_000_000_000

    /// Arrival minus camera time on one clock, both nanoseconds: the least of them seen, the
    /// frame that travelled fastest.
    private struct Anchor {
        private(set) var offset: Int64?
        private var lastSource = PerTrack<Int64?>(video: nil, audio: nil)

        /// The monotonic time of `source` on this clock, or nil when it re-anchors and the frame
        /// is dated by its arrival.
        mutating func date(_ source: Int64, arrival: Int64, track: Track) -> Int64? {
            if let previous = lastSource[track], source < previous { offset = nil }
            lastSource[track] = source
            if let offset, source + offset <= arrival, arrival - (source + offset) <= LiveTimeline.resyncNanoseconds {
                return source + offset
            }
            offset = arrival - source
            return nil
        }
    }

    private var stream = Anchor()
    private var camera = Anchor()
    private var last = PerTrack<Int64?>(video: nil, audio: nil)

    /// Arrival (monotonic) minus the camera's wall-clock time, when the camera has said what its
    /// clock reads: its clock's lead over this machine's follows from it.
    var cameraClockOffset: Int64? { camera.offset }

    /// The capture time of a frame of `track` that arrived at `arrival` (monotonic
    /// nanoseconds), stamped `streamTime` nanoseconds by the stream and `cameraTime` (Unix
    /// nanoseconds on the camera's clock) when known; dated by its arrival when neither is. A
    /// stretch of sound is dated by its last sample, the one captured just before it was sent.
    mutating func time(_ track: Track = .video, streamTime: Int64?, cameraTime: Int64?, arrival: Int64) -> Int64 {
        var time = arrival
        if let cameraTime {
            time = camera.date(cameraTime, arrival: arrival, track: track) ?? arrival
        } else if let streamTime {
            time = stream.date(streamTime, arrival: arrival, track: track) ?? arrival
        }
        // Only ordered: a recording makes its own timestamps grow by a tick where two frames
        // of a burst fall within one.
        if let last = last[track], time <= last { time = last + 1 }
        last[track] = time
        return time
    }

    /// Forgets the stream clock's anchor: a new connection's timestamps start anywhere. The
    /// camera's wall clock goes on.
    mutating func restart() {
        stream = Anchor()
    }
}
