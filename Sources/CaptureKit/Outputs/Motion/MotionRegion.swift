import Foundation

/// A part of the picture a ``CaptureMotionOutput`` watches differently: not at all (a tree
/// that sways, a road beyond the garden) or with a sensitivity of its own. The rectangle is in
/// metadata coordinates, as ``CaptureMetadataOutput/rectOfInterest``; where regions overlap,
/// the later one counts.
public struct MotionRegion: Sendable, Hashable {
    /// The part of the picture, in metadata coordinates (inside (0, 0, 1, 1)).
    public var rect: CGRect
    /// The sensitivity there (0...1, as ``CaptureMotionOutput/sensitivity``), or nil when the
    /// region is not watched.
    public var sensitivity: Double?

    /// A region where nothing counts as motion.
    public static func ignored(_ rect: CGRect) -> MotionRegion { MotionRegion(rect: rect, sensitivity: nil) }

    /// A region watched with its own sensitivity (0...1).
    public static func watched(_ rect: CGRect, sensitivity: Double) -> MotionRegion { MotionRegion(rect: rect, sensitivity: sensitivity) }
}
