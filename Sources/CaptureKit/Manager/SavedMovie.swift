/// A movie recorded by a ``CaptureManager`` and saved to its library.
public struct SavedMovie: Sendable {
    /// The recording as it finished (duration, frames, why it ended early if it did).
    public let recording: RecordedMovie
    /// Its entry in the library.
    public let asset: MediaAsset
    /// Its first frame, 100 pixels wide, upright.
    public let coverImage: PixelBuffer
}
