/// A picture's size in pixels (`CMVideoDimensions`): frame sizes, photo sizes, asset sizes. The
/// one size type of the API; `PhotoDimensions`, `MediaAsset.Size` and
/// `VirtualCameraConfiguration.Size` are other names for it.
public struct VideoDimensions: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// No size: 0 × 0 (`CMVideoDimensions()`), which settings read as "no limit".
    public static let zero = VideoDimensions(width: 0, height: 0)

    /// Width × height.
    public var pixelCount: Int { width * height }

    /// Whether both sides are at most those of `other`.
    public func fits(in other: VideoDimensions) -> Bool { width <= other.width && height <= other.height }

    /// `WIDTHxHEIGHT`, as `1920x1080`.
    public var description: String { "\(width)x\(height)" }

    /// This size scaled down (never up), keeping its aspect ratio, to fit inside `box`; sides
    /// stay even so 4:2:0 chroma keeps whole samples.
    package func scaledToFit(_ box: VideoDimensions) -> VideoDimensions {
        guard !fits(in: box) else { return self }
        let scale = min(Double(box.width) / Double(width), Double(box.height) / Double(height))
        let w = max(2, Int((Double(width) * scale).rounded(.down)) & ~1)
        let h = max(2, Int((Double(height) * scale).rounded(.down)) & ~1)
        return VideoDimensions(width: min(w, box.width), height: min(h, box.height))
    }
}
