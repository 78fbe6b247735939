/// A photo taken by a ``CaptureManager`` and saved to its library.
public struct SavedPhoto: Sendable {
    /// The photo as captured (encoded data, metadata, pixels).
    public let photo: CapturePhoto
    /// Its entry in the library.
    public let asset: MediaAsset
}
