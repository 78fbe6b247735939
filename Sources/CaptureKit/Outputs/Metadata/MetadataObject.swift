import Foundation

/// Something a ``CaptureMetadataOutput`` found in a video frame (`AVMetadataObject`): what it
/// is, where it is, and when.
///
/// Positions are in *metadata coordinates*: (0, 0) is the top-left and (1, 1) the bottom-right
/// of the picture as the output's connection presents it — the device's frame turned clockwise
/// by the connection's `videoRotationAngle`, then flipped left to right when
/// `isVideoMirrored`. ``CaptureMetadataOutput/rectOfInterest`` uses the same coordinates.
public class MetadataObject: @unchecked Sendable, CustomStringConvertible {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    // @unchecked: every stored property is an immutable `let` of a Sendable type.

    /// What kind of object this is.
    public let type: ObjectType
    /// The smallest upright rectangle around the object, in metadata coordinates.
    public let bounds: CGRect
    /// The presentation time of the frame the object was found in.
    public let time: MediaTime
    /// How long that frame lasts.
    public let duration: MediaTime

    init(type: ObjectType, bounds: CGRect, time: MediaTime, duration: MediaTime) {
        self.type = type
        self.bounds = bounds
        self.time = time
        self.duration = duration
    }

    /// The type and bounds, as `qr (0.100, 0.200, 0.300, 0.400)`.
    public var description: String {
        String(format: "%@ (%.3f, %.3f, %.3f, %.3f)", type.rawValue, bounds.minX, bounds.minY, bounds.width, bounds.height)
    }
}
