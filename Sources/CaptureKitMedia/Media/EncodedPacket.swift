import CaptureKitCore
package import CFFmpeg

/// One packet an encoder made (or passed through), lent to a sink for the duration of the call:
/// the coded bytes with their timing in the encoder's time base, and the track they belong to.
/// What every sink takes — the movie muxer today — so that no output names an FFmpeg type.
package struct EncodedPacket {
    /// Which track of the file.
    package enum Track: Sendable {
        case video, audio
    }

    package let track: Track
    /// The packet itself, valid only during the call it was lent to.
    package let packet: UnsafeMutablePointer<AVPacket>
    /// The time base of the packet's timestamps.
    package let timeBase: AVRational

    /// `packet`, lent as `track`'s, its timestamps in `timeBase`.
    package init(track: Track, packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) {
        self.track = track
        self.packet = packet
        self.timeBase = timeBase
    }

    /// The presentation time, in ``timeBase`` units (nil when the packet has none).
    package var presentationTimestamp: Int64? {
        packet.pointee.pts == FFmpeg.noTimestamp ? nil : packet.pointee.pts
    }
}

/// Where an encoder hands its packets, one at a time.
package typealias PacketSink = (EncodedPacket) throws(CaptureError) -> Void
