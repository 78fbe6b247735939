import CaptureKit

/// Where a frame lands in a preview area: the frame mirrored (when asked), then turned
/// clockwise by its rotation, then fitted by a ``VideoGravity``. The one place the window's
/// drawing and the coordinate conversions take their numbers from, so they cannot disagree.
struct PreviewGeometry: Sendable, Equatable {
    /// The frame as the device delivers it.
    var frameWidth: Int
    var frameHeight: Int
    /// Clockwise quarter turns in degrees: 0, 90, 180 or 270.
    var rotation: Int
    var isMirrored: Bool
    var gravity: VideoGravity
    /// The preview area in pixels.
    var viewWidth: Int
    var viewHeight: Int

    /// Whether the turn swaps width and height.
    var swapsDimensions: Bool { rotation == 90 || rotation == 270 }

    /// The picture's size after the turn.
    var orientedSize: (width: Double, height: Double) {
        swapsDimensions ? (Double(frameHeight), Double(frameWidth)) : (Double(frameWidth), Double(frameHeight))
    }

    /// The rectangle the whole turned picture covers in the view; larger than the view for
    /// `.resizeAspectFill` (the parts outside are cut off), centred for both aspect modes.
    var pictureRect: (x: Double, y: Double, width: Double, height: Double) {
        let view = (width: Double(viewWidth), height: Double(viewHeight))
        let picture = orientedSize
        guard picture.width > 0, picture.height > 0 else { return (0, 0, view.width, view.height) }
        let scale: Double
        switch gravity {
        case .resize: return (0, 0, view.width, view.height)
        case .resizeAspect: scale = min(view.width / picture.width, view.height / picture.height)
        case .resizeAspectFill: scale = max(view.width / picture.width, view.height / picture.height)
        }
        let width = picture.width * scale, height = picture.height * scale
        return ((view.width - width) / 2, (view.height - height) / 2, width, height)
    }

    /// A device point (normalized, unturned sensor space) in view pixels.
    func layerPoint(fromDevicePoint point: PreviewPoint) -> PreviewPoint {
        let mirrored = isMirrored ? PreviewPoint(x: 1 - point.x, y: point.y) : point
        let turned: PreviewPoint
        switch rotation {
        case 90: turned = PreviewPoint(x: 1 - mirrored.y, y: mirrored.x)
        case 180: turned = PreviewPoint(x: 1 - mirrored.x, y: 1 - mirrored.y)
        case 270: turned = PreviewPoint(x: mirrored.y, y: 1 - mirrored.x)
        default: turned = mirrored
        }
        let rect = pictureRect
        return PreviewPoint(x: rect.x + turned.x * rect.width, y: rect.y + turned.y * rect.height)
    }

    /// A view point in the device's normalized, unturned sensor space: the inverse of
    /// ``layerPoint(fromDevicePoint:)``.
    func devicePoint(fromLayerPoint point: PreviewPoint) -> PreviewPoint {
        let rect = pictureRect
        let turned = PreviewPoint(x: (point.x - rect.x) / rect.width, y: (point.y - rect.y) / rect.height)
        let mirrored: PreviewPoint
        switch rotation {
        case 90: mirrored = PreviewPoint(x: turned.y, y: 1 - turned.x)
        case 180: mirrored = PreviewPoint(x: 1 - turned.x, y: 1 - turned.y)
        case 270: mirrored = PreviewPoint(x: 1 - turned.y, y: turned.x)
        default: mirrored = turned
        }
        return isMirrored ? PreviewPoint(x: 1 - mirrored.x, y: mirrored.y) : mirrored
    }
}
