/// The turn and mirror that show a picture upright (`preferredTransform` of `AVAssetTrack`,
/// restricted to what cameras produce: quarter turns and a left-right mirror).
public struct VideoTransform: Sendable, Hashable {
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// Whether the picture is mirrored left to right (before turning).
    public var isMirrored: Bool

    /// A transform; `rotation` is normalised to 0..<360 in quarter turns.
    public init(rotation: Int, isMirrored: Bool) {
        self.rotation = ((rotation % 360 + 360) % 360 + 45) / 90 * 90 % 360
        self.isMirrored = isMirrored
    }

    /// No change.
    public static let identity = VideoTransform(rotation: 0, isMirrored: false)
}
