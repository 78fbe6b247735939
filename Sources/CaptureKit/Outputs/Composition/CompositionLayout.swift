/// How a ``CaptureCompositionOutput`` places its cameras in one picture.
public enum CompositionLayout: Sendable, Hashable {
    /// The corner a picture-in-picture inset sits in.
    public enum Corner: Sendable, Hashable {
        /// Top left.
        case topLeft
        /// Top right.
        case topRight
        /// Bottom left.
        case bottomLeft
        /// Bottom right.
        case bottomRight
    }

    /// The main camera fills the picture; the second is an inset `scale` of the picture's
    /// width (0.1 to 0.5) in `corner`.
    case pictureInPicture(corner: Corner = .bottomRight, scale: Double = 1.0 / 3)
    /// The cameras side by side, each in half the picture's width, left to right in
    /// connection order.
    case sideBySide

    /// How many cameras the layout draws.
    var cameraCount: Int { 2 }

    /// Where camera `index` (0: the main one) goes in a `canvas` picture, for a source of
    /// `source` size: scaled to fit its place with its shape kept, centred, on even
    /// coordinates (4:2:0 chroma).
    func rectangle(for index: Int, source: VideoDimensions, canvas: VideoDimensions) -> PixelRect {
        switch self {
        case .sideBySide:
            let half = canvas.width / 2
            return Self.fit(source, into: PixelRect(x: index == 0 ? 0 : half, y: 0, width: half, height: canvas.height))
        case .pictureInPicture(let corner, let scale):
            guard index > 0 else { return Self.fit(source, into: PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)) }
            let width = Self.size(Double(canvas.width) * min(0.5, max(0.1, scale)))
            let height = Self.size(Double(width) * Double(source.height) / Double(max(1, source.width)))
            let margin = Self.even(Double(canvas.width) / 40)
            let x = corner == .topLeft || corner == .bottomLeft ? margin : canvas.width - width - margin
            let y = corner == .topLeft || corner == .topRight ? margin : canvas.height - height - margin
            return PixelRect(x: max(0, x), y: max(0, y), width: min(width, canvas.width), height: min(height, canvas.height))
        }
    }

    private static func fit(_ source: VideoDimensions, into area: PixelRect) -> PixelRect {
        let scale = min(Double(area.width) / Double(max(1, source.width)), Double(area.height) / Double(max(1, source.height)))
        let width = min(area.width, size(Double(source.width) * scale)), height = min(area.height, size(Double(source.height) * scale))
        return PixelRect(x: area.x + even(Double(area.width - width) / 2), y: area.y + even(Double(area.height - height) / 2),
                         width: width, height: height)
    }

    private static func even(_ value: Double) -> Int { max(0, Int(value.rounded(.down)) & ~1) }

    /// A picture's side: even, and at least 2.
    private static func size(_ value: Double) -> Int { max(2, even(value)) }
}
