internal import CFFmpeg

/// An encoded packet kept after the call that lent it (``EncodedPacket`` is valid only during
/// that call): a reference to the same coded bytes (`av_packet_clone`, no copy of the data),
/// its timing, and the track it belongs to. Freed with the last reference.
final class HeldPacket: @unchecked Sendable {
    // Unchecked Sendable: immutable; the packet it references is only read, and freed with the last reference.
    let track: EncodedPacket.Track
    let timeBase: AVRational
    let pts: Int64
    let dts: Int64
    let isKeyframe: Bool
    /// Coded bytes.
    let size: Int
    private let packet: UnsafeMutablePointer<AVPacket>

    /// Holds `encoded`; nil when FFmpeg cannot reference it (out of memory) or it has no time.
    init?(_ encoded: EncodedPacket) {
        guard let pts = encoded.presentationTimestamp, let clone = av_packet_clone(encoded.packet) else { return nil }
        packet = clone
        track = encoded.track
        timeBase = encoded.timeBase
        self.pts = pts
        dts = clone.pointee.dts == FFmpeg.noTimestamp ? pts : clone.pointee.dts
        isKeyframe = (clone.pointee.flags & AV_PKT_FLAG_KEY) != 0
        size = Int(clone.pointee.size)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    /// Whether a clip can start with it.
    var isVideoKeyframe: Bool { track == .video && isKeyframe }

    /// Its presentation time.
    var time: MediaTime { MediaTime(value: pts * Int64(timeBase.num), timescale: timeBase.den) }

    /// Its decode time.
    var decodeTime: MediaTime { MediaTime(value: dts * Int64(timeBase.num), timescale: timeBase.den) }

    /// Lends a new reference to the packet, its timestamps moved back by `offset` (in its own
    /// time base), to `body` — what a sink that rescales and consumes packets may take.
    func lend(shiftedBack offset: Int64, to body: (EncodedPacket) throws(CaptureError) -> Void) throws(CaptureError) {
        guard let copy = av_packet_clone(packet) else { throw CaptureError(.outOfMemory, "cannot reference a kept packet") }
        var pointer: UnsafeMutablePointer<AVPacket>? = copy
        defer { av_packet_free(&pointer) }
        copy.pointee.pts = pts - offset
        copy.pointee.dts = dts - offset
        try body(EncodedPacket(track: track, packet: copy, timeBase: timeBase))
    }
}
