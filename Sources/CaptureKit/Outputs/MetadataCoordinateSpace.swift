import Foundation

/// Converts between a device frame's pixels and metadata coordinates (the frame turned
/// clockwise by the connection's rotation, then flipped left to right when mirrored, scaled to
/// 0...1) — the same convention as `EXIFOrientation(rotationAngle:isMirrored:)`.
struct MetadataCoordinateSpace: Sendable, Equatable {
    var width: Int
    var height: Int
    /// Clockwise quarter turns, 0...3.
    var quarterTurns: Int
    var isMirrored: Bool

    init(width: Int, height: Int, rotationAngle: Double, isMirrored: Bool) {
        self.width = width
        self.height = height
        quarterTurns = ((Int((rotationAngle / 90).rounded()) % 4) + 4) % 4
        self.isMirrored = isMirrored
    }

    /// The metadata point of a device pixel position (continuous: pixel edges at integers).
    func metadataPoint(x: Double, y: Double) -> CGPoint {
        let nx = x / Double(width), ny = y / Double(height)
        var (u, v): (Double, Double)
        switch quarterTurns {
        case 1: (u, v) = (1 - ny, nx)
        case 2: (u, v) = (1 - nx, 1 - ny)
        case 3: (u, v) = (ny, 1 - nx)
        default: (u, v) = (nx, ny)
        }
        if isMirrored { u = 1 - u }
        return CGPoint(x: u, y: v)
    }

    /// The device pixel position (continuous) of a metadata point.
    func devicePoint(_ point: CGPoint) -> (x: Double, y: Double) {
        let u = isMirrored ? 1 - Double(point.x) : Double(point.x)
        let v = Double(point.y)
        let (nx, ny): (Double, Double)
        switch quarterTurns {
        case 1: (nx, ny) = (v, 1 - u)
        case 2: (nx, ny) = (1 - u, 1 - v)
        case 3: (nx, ny) = (1 - v, u)
        default: (nx, ny) = (u, v)
        }
        return (nx * Double(width), ny * Double(height))
    }

    /// The device pixels covering a metadata rectangle, rounded outwards and clipped to the
    /// frame; nil when nothing of the frame is left.
    func deviceRect(_ rect: CGRect) -> PixelRect? {
        let points = [CGPoint(x: rect.minX, y: rect.minY), CGPoint(x: rect.maxX, y: rect.maxY)].map(devicePoint)
        let x0 = max(0, Int(points.map(\.x).min()!.rounded(.down))), x1 = min(width, Int(points.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(points.map(\.y).min()!.rounded(.down))), y1 = min(height, Int(points.map(\.y).max()!.rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
