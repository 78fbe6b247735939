import CaptureKit

/// How a preview fits the picture into its area (`AVLayerVideoGravity`).
public enum VideoGravity: String, Sendable, Hashable, CaseIterable {
    /// The whole picture, aspect ratio kept, with black bars where the shapes differ.
    case resizeAspect
    /// The area filled, aspect ratio kept: the overhanging parts of the picture are cut off.
    case resizeAspectFill
    /// The picture stretched to the area, aspect ratio ignored.
    case resize
}
