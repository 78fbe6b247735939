/// The last stretch of an endless recording's packets, from a video keyframe on: what a
/// pre-roll clip can start from. Bounded by time (enough to start a clip `span` before the
/// newest packet, from the keyframe at or before that) and by bytes (whole groups of pictures
/// dropped from the old end while over). A value: the pre-roll sink owns it on the encoder
/// thread.
struct PacketRing {
    /// How far back a clip may need to start.
    var span: MediaTime
    /// The most coded bytes kept.
    var maximumBytes: Int

    private(set) var packets: [HeldPacket] = []
    private(set) var bytes = 0

    init(span: MediaTime, maximumBytes: Int) {
        self.span = span
        self.maximumBytes = maximumBytes
    }

    /// Keeps `packet`, then drops what no clip can need any more. Until the first keyframe
    /// nothing is kept (a clip must start on one).
    mutating func append(_ packet: HeldPacket) {
        if packets.isEmpty, !packet.isVideoKeyframe { return }
        packets.append(packet)
        bytes += packet.size
        trim(newest: packet.time)
    }

    /// The index of the newest video keyframe presented at or before `time`, else of the oldest
    /// (the ring does not reach back that far); nil when empty.
    func start(atOrBefore time: MediaTime) -> Int? {
        // Called for every packet: searched from the new end, without building a list.
        packets.indices.last { packets[$0].isVideoKeyframe && packets[$0].time <= time }
            ?? packets.indices.first { packets[$0].isVideoKeyframe }
    }

    private mutating func trim(newest: MediaTime) {
        // The newest keyframe a clip starting `span` ago would start from: nothing before it is needed.
        if let keep = start(atOrBefore: newest - span), keep > 0 { drop(before: keep) }
        while bytes > maximumBytes, let next = packets.indices.dropFirst().first(where: { packets[$0].isVideoKeyframe }) {
            drop(before: next)
        }
    }

    private mutating func drop(before index: Int) {
        bytes -= packets[..<index].reduce(0) { $0 + $1.size }
        packets.removeFirst(index)
    }
}
