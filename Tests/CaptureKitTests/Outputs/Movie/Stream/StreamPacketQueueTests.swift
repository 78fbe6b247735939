import CFFmpeg
import Testing
@testable import CaptureKit
@testable import CaptureKitMedia

/// The per-destination queue: bounded in media time, dropping whole groups of pictures, always
/// starting at a keyframe — on real (empty) FFmpeg packets with the timing and flags set.
@Suite(.excludable)
struct StreamPacketQueueTests {
    /// A held packet of `track` at `frame` (of 30 fps, in 90 kHz), 1 000 bytes.
    static func packet(_ track: EncodedPacket.Track = .video, frame: Int64, key: Bool = false) throws -> HeldPacket {
        var raw = av_packet_alloc()
        defer { av_packet_free(&raw) }
        let packet = try #require(raw)
        #expect(av_new_packet(packet, 1000) == 0)
        packet.pointee.pts = frame * 3000
        packet.pointee.dts = frame * 3000
        if key { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        return try #require(HeldPacket(EncodedPacket(track: track, packet: packet, timeBase: AVRational(num: 1, den: 90_000))))
    }

    /// 30 fps video with a keyframe every `gop` frames, from `start`.
    static func video(_ range: Range<Int64>, gop: Int64) throws -> [HeldPacket] {
        try range.map { try packet(frame: $0, key: $0 % gop == 0) }
    }

    @Test func whatComesBeforeTheFirstKeyframeIsDroppedAndCounted() throws {
        var queue = StreamPacketQueue(maximumDelay: MediaTime(value: 2, timescale: 1), hasVideo: true)
        var dropped = StreamPacketQueue.Dropped()
        for packet in try Self.video(5..<70, gop: 60) { dropped += queue.append(packet, holdingNewestGroup: false) }
        #expect(dropped.videoFrames == 55)
        #expect(queue.count == 10)
        let first = queue.popFirst()
        #expect(first?.isVideoKeyframe == true)
    }

    @Test func aQueueNobodyEmptiesStaysWithinItsDelayAndDropsWholeGroups() throws {
        var queue = StreamPacketQueue(maximumDelay: MediaTime(value: 2, timescale: 1), hasVideo: true)
        var dropped = StreamPacketQueue.Dropped()
        var appended = 0
        for frame in Int64(0)..<600 {
            dropped += queue.append(try Self.packet(frame: frame, key: frame % 30 == 0), holdingNewestGroup: false)
            dropped += queue.append(try Self.packet(.audio, frame: frame, key: true), holdingNewestGroup: false)
            appended += 1
            let packets = Array(queue.packets.suffix(queue.count))
            let span = try #require(packets.last).time - packets[0].time
            #expect(span <= MediaTime(value: 2, timescale: 1), "frame \(frame): \(span.seconds) s queued")
            #expect(packets[0].isVideoKeyframe, "frame \(frame): the queue does not start at a keyframe")
        }
        let queuedVideo = queue.packets.suffix(queue.count).filter { $0.track == .video }.count
        #expect(dropped.videoFrames + queuedVideo == appended, "every frame is queued or counted dropped")
        #expect(dropped.videoFrames % 30 == 0, "drops are whole one-second groups: \(dropped.videoFrames)")
    }

    @Test func whileAwayOnlyTheNewestGroupIsKept() throws {
        var queue = StreamPacketQueue(maximumDelay: MediaTime(value: 10, timescale: 1), hasVideo: true)
        var dropped = StreamPacketQueue.Dropped()
        for packet in try Self.video(0..<95, gop: 30) { dropped += queue.append(packet, holdingNewestGroup: true) }
        #expect(queue.count == 5)
        #expect(dropped.videoFrames == 90)
        let first = queue.popFirst()
        #expect(first.map { Int($0.pts) } == 270_000)
    }

    @Test func aNewConnectionStartsAtTheNewestKeyframe() throws {
        var queue = StreamPacketQueue(maximumDelay: MediaTime(value: 10, timescale: 1), hasVideo: true)
        for packet in try Self.video(0..<75, gop: 30) { _ = queue.append(packet, holdingNewestGroup: false) }
        let dropped = queue.restartAtNewestKeyframe()
        #expect(dropped.videoFrames == 60)
        #expect(queue.count == 15)
        let first = queue.popFirst()
        #expect(first?.isVideoKeyframe == true)
    }

    @Test func soundAloneStartsAnywhere() throws {
        var queue = StreamPacketQueue(maximumDelay: MediaTime(value: 1, timescale: 1), hasVideo: false)
        var dropped = StreamPacketQueue.Dropped()
        for frame in Int64(0)..<90 { dropped += queue.append(try Self.packet(.audio, frame: frame), holdingNewestGroup: false) }
        #expect(dropped.audioPackets + queue.count == 90)
        #expect(queue.count <= 31)
    }

    @Test func reconnectionWaitsDoubleUpToTheirCap() {
        let policy = StreamPublisher.Reconnection(initialDelay: MediaTime(value: 1, timescale: 10), maximumDelay: MediaTime(value: 1, timescale: 2),
                                                  maximumAttempts: nil)
        #expect((1...6).map { policy.delay(before: $0).seconds } == [0.1, 0.2, 0.4, 0.5, 0.5, 0.5])
        #expect(policy.delay(before: 10_000).seconds == 0.5)
    }
}
