import CaptureKitCore
import CaptureKitMedia

/// Whether a movie file can be saved into a ``MediaLibrary``, and if not, why
/// (`UIVideoAtPathIsCompatibleWithSavedPhotosAlbum`, with the reason it leaves out).
///
/// ```swift
/// switch library.isVideoCompatible(at: url) {
/// case .compatible: _ = try await library.saveVideo(at: url)
/// case .incompatible(let reason): print("not saved: \(reason)")
/// }
/// ```
public enum VideoCompatibility: Sendable, Hashable {
    /// A movie the library takes: a QuickTime/MP4, Matroska/WebM or AVI file with a video
    /// stream in a codec the library takes.
    case compatible
    /// Not a movie the library takes; `reason` says why in one line (a missing or unreadable
    /// file, not media, a still image, no video stream, a codec or container it does not take).
    case incompatible(reason: String)

    /// Whether the file can be saved.
    public var isCompatible: Bool {
        if case .compatible = self { return true }
        return false
    }
}
