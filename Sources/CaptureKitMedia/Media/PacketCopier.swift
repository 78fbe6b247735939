import CaptureKitCore
internal import CFFmpeg
import Foundation

/// Stores coded pictures as a camera sent them — a webcam's JPEGs, a network camera's H.264
/// packets — into a track, with the file's timestamps: the pass-through that records without
/// decoding or encoding.
package final class PacketCopier {
    private let packet: UnsafeMutablePointer<AVPacket>

    package init() throws(CaptureError) {
        guard let packet = av_packet_alloc() else { throw CaptureError(.outOfMemory, "cannot allocate a packet", operation: "av_packet_alloc") }
        self.packet = packet
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&freeing)
    }

    /// Hands `frame`'s bytes to `write` as a video packet presented at `pts` and decoded at
    /// `dts`, lasting `duration` (all in ``VideoEncoder/timeBase``). Wraps `av_new_packet`.
    package func copy(_ frame: CompressedFrame, pts: Int64, dts: Int64, duration: Int64, write: PacketSink) throws(CaptureError) {
        av_packet_unref(packet)
        defer { av_packet_unref(packet) }
        try FFmpeg.check(av_new_packet(packet, Int32(clamping: frame.byteCount)), "av_new_packet", code: .outOfMemory)
        memcpy(packet.pointee.data, frame.storage.bytes, frame.byteCount)
        packet.pointee.pts = pts
        packet.pointee.dts = dts
        packet.pointee.duration = duration
        if frame.isKeyFrame { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        try write(EncodedPacket(track: .video, packet: packet, timeBase: VideoEncoder.timeBase))
    }
}
