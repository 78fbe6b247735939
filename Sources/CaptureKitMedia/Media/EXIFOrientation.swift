import CaptureKitCore

/// How a stored picture has to be turned to look upright: the EXIF `Orientation` tag (0x0112),
/// with the case names of Core Graphics' `CGImagePropertyOrientation` (same raw values).
///
/// A capture connection's rotation and mirroring become one of these:
///
/// ```swift
/// let orientation = EXIFOrientation(rotationAngle: 90, isMirrored: false)   // .right (6)
/// ```
public enum EXIFOrientation: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 1: shown as stored.
    case up = 1
    /// 2: flipped left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: flipped top to bottom.
    case downMirrored = 4
    /// 5: transposed (flipped left to right, then turned 270° clockwise).
    case leftMirrored = 5
    /// 6: turned 90° clockwise to show.
    case right = 6
    /// 7: transversed (flipped left to right, then turned 90° clockwise).
    case rightMirrored = 7
    /// 8: turned 270° clockwise (90° counter-clockwise) to show.
    case left = 8

    /// The orientation that shows a picture turned `rotationAngle` degrees clockwise (0, 90,
    /// 180 or 270, as `CaptureConnection.videoRotationAngle`) and, when `isMirrored`, flipped
    /// left to right *as shown* — the way a selfie preview is mirrored, so a mirrored portrait
    /// picture is `.leftMirrored` as on iOS. Other angles snap to the nearest quarter turn.
    public init(rotationAngle: Double, isMirrored: Bool) {
        let quarterTurns = ((Int((rotationAngle / 90).rounded()) % 4) + 4) % 4
        switch (quarterTurns, isMirrored) {
        case (0, false): self = .up
        case (1, false): self = .right
        case (2, false): self = .down
        case (3, false): self = .left
        case (0, true): self = .upMirrored
        case (1, true): self = .leftMirrored
        case (2, true): self = .downMirrored
        default: self = .rightMirrored
        }
    }

    /// Whether the picture shown is as wide as the stored one is high (a quarter turn).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The tag value and its name, as `6 (right)`.
    public var description: String { "\(rawValue) (\(Self.names[rawValue - 1]))" }

    private static let names = ["up", "upMirrored", "down", "downMirrored", "leftMirrored", "right", "rightMirrored", "left"]

    /// The same turn as two steps on the stored pixels: flip left to right (when `mirrorsFirst`),
    /// then turn `clockwiseQuarterTurns` × 90° clockwise. This is what the pixel kernels apply.
    package var pixelSteps: (mirrorsFirst: Bool, clockwiseQuarterTurns: Int) {
        switch self {
        case .up: return (false, 0)
        case .upMirrored: return (true, 0)
        case .down: return (false, 2)
        case .downMirrored: return (true, 2)
        case .leftMirrored: return (true, 3)
        case .right: return (false, 1)
        case .rightMirrored: return (true, 1)
        case .left: return (false, 3)
        }
    }

    /// Where stored pixel (x, y) of a `width`×`height` plane lands when shown, as the source
    /// coordinates of shown pixel (0, 0) and the source steps for +1 shown column and +1 shown
    /// row. Lets one strided loop do all eight orientations.
    package func sourceWalk(width: Int, height: Int) -> (origin: (x: Int, y: Int), column: (dx: Int, dy: Int), row: (dx: Int, dy: Int)) {
        func source(_ x: Int, _ y: Int) -> (Int, Int) {
            // Undo the turn, then the mirror: shown (x, y) → turned-back (u, v) → stored.
            let (mirrors, turns) = pixelSteps
            let (u, v): (Int, Int)
            switch turns {
            case 1: (u, v) = (y, height - 1 - x)
            case 2: (u, v) = (width - 1 - x, height - 1 - y)
            case 3: (u, v) = (width - 1 - y, x)
            default: (u, v) = (x, y)
            }
            return (mirrors ? width - 1 - u : u, v)
        }
        let origin = source(0, 0), nextColumn = source(1, 0), nextRow = source(0, 1)
        return ((origin.0, origin.1), (nextColumn.0 - origin.0, nextColumn.1 - origin.1), (nextRow.0 - origin.0, nextRow.1 - origin.1))
    }
}
