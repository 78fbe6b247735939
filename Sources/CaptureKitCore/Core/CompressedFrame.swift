/// The coded picture a camera sent for a frame — one JPEG image of a Motion-JPEG stream, or one
/// H.264/HEVC packet of a network camera — kept beside the decoded frame so a recording in the
/// same codec can store it as it came instead of encoding the decoded pixels again.
package struct CompressedFrame: Sendable {
    /// How the bytes are coded.
    package enum Codec: Sendable, Hashable {
        case jpeg
        case h264
        case hevc
    }

    package let codec: Codec
    package let storage: MediaStorage
    package let byteCount: Int
    /// Whether a decoder can start here (every JPEG; an H.264/HEVC random access point).
    package let isKeyFrame: Bool
    /// The packet's presentation time less that of the frame it travels with: zero unless the
    /// stream reorders frames (B-frames), when a frame carries the packets read since the one
    /// before it, in decode order.
    package let presentationOffset: MediaTime
    /// The packet's decode time less the frame's presentation time.
    package let decodeOffset: MediaTime

    package init(codec: Codec, storage: MediaStorage, byteCount: Int, isKeyFrame: Bool = true,
                 presentationOffset: MediaTime = .zero, decodeOffset: MediaTime = .zero) {
        self.codec = codec
        self.storage = storage
        self.byteCount = byteCount
        self.isKeyFrame = isKeyFrame
        self.presentationOffset = presentationOffset
        self.decodeOffset = decodeOffset
    }

    /// The coded bytes.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.bytes, count: byteCount) }
}
