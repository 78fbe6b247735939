/// A point for the preview's coordinate conversions: in window pixels for a layer point, in
/// the capture device's normalized space (0...1 across and down the unturned, unmirrored sensor
/// picture) for a device point. Not clamped: a layer point in a black bar maps outside 0...1.
public struct PreviewPoint: Sendable, Hashable, CustomStringConvertible {
    /// Across, to the right.
    public var x: Double
    /// Down.
    public var y: Double

    /// A point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}
