/// The compressed picture a camera sent for a frame (one JPEG image of a Motion-JPEG stream),
/// kept beside the decoded frame so a recording in the same codec can store it as it is
/// instead of encoding the decoded pixels again.
package struct CompressedFrame: Sendable {
    /// How the bytes are coded.
    package enum Codec: Sendable, Hashable {
        case jpeg
    }

    package let codec: Codec
    package let storage: MediaStorage
    package let byteCount: Int

    package init(codec: Codec, storage: MediaStorage, byteCount: Int) {
        self.codec = codec
        self.storage = storage
        self.byteCount = byteCount
    }

    /// The coded bytes.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.bytes, count: byteCount) }
}
