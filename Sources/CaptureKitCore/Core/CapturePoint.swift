/// A point in a picture (`CGPoint` as AVFoundation uses it): in the capture device's normalized
/// space — (0, 0) top left, (1, 1) bottom right of the unturned, unmirrored sensor picture — for
/// points of interest and preview conversions, or in window pixels for a preview layer point.
/// Not clamped: a layer point in a black bar maps outside 0...1. The one point type of the
/// API; `PreviewPoint` and `CaptureDevice.NormalizedPoint` are other names for it.
public struct CapturePoint: Sendable, Hashable, CustomStringConvertible {
    /// Across, to the right.
    public var x: Double
    /// Down.
    public var y: Double

    /// A point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The centre of a normalized picture.
    public static let center = CapturePoint(x: 0.5, y: 0.5)

    /// `(x, y)`.
    public var description: String { "(\(x), \(y))" }
}
