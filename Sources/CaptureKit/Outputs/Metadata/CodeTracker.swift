/// Gives a code seen in consecutive frames one identity: a code found in a frame takes the
/// identity of the nearest code of the same type and payload found in one of the last few
/// frames; anything else is new. A code that scans stopped finding for longer has left the
/// picture.
struct CodeTracker {
    /// Frames a code may go unread (glare, motion blur, a hand passing) and still be the same
    /// code when it is read again.
    static let missedFramesAllowed = 3

    private struct Track {
        var id: Int
        var type: MetadataObject.ObjectType
        var data: [UInt8]
        var centerX: Double
        var centerY: Double
        /// When it was last seen, in seconds on the session clock.
        var lastSeen: Double
        /// Scans in a row that did not find it.
        var missedScans = 0
    }

    private var tracks: [Track] = []
    private var lastID = 0

    /// The identities of `codes`, found together in the frame at `time` lasting `frameDuration`
    /// (device pixel centres). Time rather than a frame count decides when a code has left, so
    /// frames skipped while the output was busy do not stretch a code's stay.
    mutating func identify(_ codes: [(type: MetadataObject.ObjectType, data: [UInt8], centerX: Double, centerY: Double)],
                           time: MediaTime, frameDuration: MediaTime) -> [Int] {
        let now = time.seconds
        let period = frameDuration.isNumeric && frameDuration.seconds > 0 ? frameDuration.seconds : 1.0 / 30
        // Missing for `missedFramesAllowed` frames is a gap of that many periods plus one; half
        // a period more absorbs timestamp jitter.
        let allowedGap = (Double(Self.missedFramesAllowed) + 1.5) * period
        // A code leaves only once two scans in a row have missed it: one miss may be a frame the
        // scanner could not read, and a scanner slower than the gap (a loaded machine, a big
        // frame) must not split a code that stays in view over one bad frame.
        tracks.removeAll { ($0.missedScans >= 2 && now - $0.lastSeen > allowedGap) || $0.missedScans > Self.missedFramesAllowed }
        var claimed = Set<Int>()
        var ids: [Int] = []
        for code in codes {
            var nearest: (index: Int, distance: Double)?
            for (index, track) in tracks.enumerated() where track.type == code.type && track.data == code.data && !claimed.contains(track.id) {
                let dx = track.centerX - code.centerX, dy = track.centerY - code.centerY
                let distance = dx * dx + dy * dy
                if nearest == nil || distance < nearest!.distance { nearest = (index, distance) }
            }
            if let index = nearest?.index {
                tracks[index].centerX = code.centerX
                tracks[index].centerY = code.centerY
                tracks[index].lastSeen = now
                tracks[index].missedScans = 0
                ids.append(tracks[index].id)
            } else {
                lastID += 1
                tracks.append(Track(id: lastID, type: code.type, data: code.data, centerX: code.centerX, centerY: code.centerY, lastSeen: now))
                ids.append(lastID)
            }
            claimed.insert(ids[ids.count - 1])
        }
        for index in tracks.indices where !claimed.contains(tracks[index].id) { tracks[index].missedScans += 1 }
        return ids
    }

    /// Forgets every code (the session stopped: nothing stays in view across a restart).
    mutating func reset() {
        tracks.removeAll()
    }
}
