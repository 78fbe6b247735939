/// The packets waiting for one destination, bounded in time: what a slow link cannot carry is
/// dropped a whole group of pictures at a time (from a keyframe to the next), oldest first, so
/// what is sent always decodes; and what is sent after a gap starts at a keyframe. A value
/// type: the publisher keeps it behind its lock.
struct StreamPacketQueue {
    /// What a call dropped.
    struct Dropped: Equatable {
        var videoFrames = 0
        var audioPackets = 0

        static func += (lhs: inout Dropped, rhs: Dropped) {
            lhs.videoFrames += rhs.videoFrames
            lhs.audioPackets += rhs.audioPackets
        }
    }

    /// The most media time the queue holds (newest − oldest) before it drops a group.
    let maximumDelay: MediaTime
    /// Whether there is a video track (else every audio packet is a place to start).
    let hasVideo: Bool
    private(set) var packets: [HeldPacket] = []
    private var head = 0
    /// Dropping until the next keyframe: nothing is queued that could not be decoded.
    private var waitingForKeyframe = true

    init(maximumDelay: MediaTime, hasVideo: Bool) {
        self.maximumDelay = maximumDelay
        self.hasVideo = hasVideo
    }

    /// Packets waiting.
    var count: Int { packets.count - head }

    /// The media time waiting: newest − oldest.
    var span: MediaTime {
        guard let first = packets[head...].first, let last = packets.last else { return .zero }
        return last.time - first.time
    }

    /// Coded bytes waiting.
    var bytes: Int { packets[head...].reduce(0) { $0 + $1.size } }

    private func startsGroup(_ packet: HeldPacket) -> Bool { hasVideo ? packet.isVideoKeyframe : packet.track == .audio }

    /// Queues `packet`. `holdingNewestGroup` (the destination is away) keeps only the group
    /// the newest keyframe starts, ready to send when it is back.
    mutating func append(_ packet: HeldPacket, holdingNewestGroup: Bool) -> Dropped {
        var dropped = Dropped()
        if waitingForKeyframe {
            guard startsGroup(packet) else {
                dropped.count(packet)
                return dropped
            }
            waitingForKeyframe = false
        }
        if holdingNewestGroup, hasVideo, startsGroup(packet) {
            dropped += dropAll()
            waitingForKeyframe = false
        }
        packets.append(packet)
        while count > 1, let first = packets[head...].first, packet.time - first.time > maximumDelay {
            dropped += dropOldestGroup()
        }
        compact()
        return dropped
    }

    /// The oldest packet, taken off the queue.
    mutating func popFirst() -> HeldPacket? {
        guard head < packets.count else { return nil }
        defer { head += 1; compact() }
        return packets[head]
    }

    /// Drops everything before the newest keyframe: a new connection starts with the newest
    /// whole group, not with what went stale while it was away.
    mutating func restartAtNewestKeyframe() -> Dropped {
        guard let newest = packets[head...].lastIndex(where: startsGroup) else { return dropAll() }
        var dropped = Dropped()
        for packet in packets[head..<newest] { dropped.count(packet) }
        head = newest
        compact()
        return dropped
    }

    /// Drops everything; what comes next is sent from its first keyframe.
    mutating func dropAll() -> Dropped {
        var dropped = Dropped()
        for packet in packets[head...] { dropped.count(packet) }
        packets.removeAll(keepingCapacity: true)
        head = 0
        waitingForKeyframe = true
        return dropped
    }

    /// Drops from the oldest packet up to the next keyframe (everything when there is none).
    private mutating func dropOldestGroup() -> Dropped {
        guard let next = packets[(head + 1)...].firstIndex(where: startsGroup) else { return dropAll() }
        var dropped = Dropped()
        for packet in packets[head..<next] { dropped.count(packet) }
        head = next
        return dropped
    }

    private mutating func compact() {
        if head > 64, head * 2 > packets.count {
            packets.removeFirst(head)
            head = 0
        }
    }
}

private extension StreamPacketQueue.Dropped {
    mutating func count(_ packet: HeldPacket) {
        if packet.track == .video { videoFrames += 1 } else { audioPackets += 1 }
    }
}
