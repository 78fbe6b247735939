/// Lays a network camera's sound end to end on the camera's timeline (``LiveTimeline``): the
/// stream's sound is continuous, so each stretch follows the one before to the sample while the
/// timeline agrees within ``toleranceSeconds``. When it disagrees, the timeline wins, so sound
/// stays with the picture: later is a gap (sound the camera did not send, reported as
/// dropped), earlier means the stretches before were dated late (a burst of old packets as a
/// server relays from the middle of its buffer, the first RTCP report aligning the camera's
/// streams), and the part of the new stretch that would lie over them is cut — never two
/// stretches over one moment, never a lasting lag behind the picture.
struct LiveSoundLayout {
    /// How far the timeline may stray from the sample count before it is followed: the jitter
    /// of stream timestamps in milliseconds (FLV's) and of anchors moving by a packet's trip,
    /// far below a video frame.
    static let toleranceSeconds = 0.005

    /// Where a stretch lands.
    struct Placement: Equatable {
        /// Its first kept sample's capture time, in samples on the monotonic clock.
        var start: Int64
        /// Samples cut from its front (they would lie over sound already delivered).
        var cut: Int
        /// Samples missing before it (0 when it follows the previous stretch).
        var gap: Int64
        /// Its sequence number: samples laid before it, gaps included.
        var sequence: Int64
    }

    /// Samples per second.
    let rate: Int
    private let tolerance: Int64
    /// Where the next stretch starts, in samples on the monotonic clock; nil before the first.
    private var next: Int64?
    private var laid: Int64 = 0

    init(rate: Int) {
        self.rate = rate
        tolerance = Int64((Double(rate) * Self.toleranceSeconds).rounded())
    }

    /// Places `frames` samples the timeline dates from sample `start`; nil when all of them lie
    /// over sound already delivered.
    mutating func place(frames: Int, start: Int64) -> Placement? {
        var placement = Placement(start: start, cut: 0, gap: 0, sequence: laid)
        if let next {
            let drift = start - next
            if drift > tolerance {
                placement.gap = drift
            } else if drift < -tolerance {
                placement.cut = Int(min(Int64(frames), -drift))
                placement.start = next
            } else {
                placement.start = next
            }
        }
        guard placement.cut < frames else { return nil }
        laid += placement.gap
        placement.sequence = laid
        let kept = Int64(frames - placement.cut)
        laid += kept
        next = placement.start + kept
        return placement
    }
}
