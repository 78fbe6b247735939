/// The compressed picture a camera sent for a frame (one JPEG image of a Motion-JPEG stream),
/// kept beside the decoded frame so a recording in the same codec can store it as it is
/// instead of encoding the decoded pixels again.
struct CompressedFrame: Sendable {
    /// How the bytes are coded.
    enum Codec: Sendable, Hashable {
        case jpeg
    }

    let codec: Codec
    let storage: MediaStorage
    let byteCount: Int

    /// The coded bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.bytes, count: byteCount) }
}
