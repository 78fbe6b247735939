import CaptureKitCore
internal import CPhotoKernels

/// Turns (and mirrors) a picture upright by a ``VideoTransform``: quarter turns of the pixels
/// with the photo plane kernels (`CPhotoKernels`: `ck_photo_transform_plane`, through
/// ``PixelTransform``), the same strided walk photos use for their orientation.
package enum FrameRotation {
    /// The EXIF orientation with the same pixel steps as `transform`: mirror left to right
    /// first (when mirrored), then turn clockwise by its rotation.
    package static func orientation(for transform: VideoTransform) -> EXIFOrientation {
        switch (transform.rotation, transform.isMirrored) {
        case (90, false): return .right
        case (180, false): return .down
        case (270, false): return .left
        case (0, true): return .upMirrored
        case (90, true): return .rightMirrored
        case (180, true): return .downMirrored
        case (270, true): return .leftMirrored
        default: return .up
        }
    }

    /// `buffer` shown upright: a new buffer (width and height swapped for quarter turns), or
    /// `buffer` itself for the identity. Planar YUV, grey and packed RGB layouts; any other
    /// layout is refused with `.unsupportedFormat`.
    package static func apply(_ transform: VideoTransform, to buffer: PixelBuffer) throws(CaptureError) -> PixelBuffer {
        try turn(buffer, by: orientation(for: transform))
    }

    /// `buffer` turned (and mirrored) as `orientation` says a stored picture must be to look
    /// upright; `buffer` itself for `.up`. The layouts and errors of ``apply(_:to:)``.
    package static func turn(_ buffer: PixelBuffer, by orientation: EXIFOrientation) throws(CaptureError) -> PixelBuffer {
        guard orientation != .up else { return buffer }
        guard turnableFormats.contains(buffer.pixelFormat) else {
            throw CaptureError(.unsupportedFormat, "\(buffer.pixelFormat) pixels cannot be turned; convert them to a planar or RGB layout first")
        }
        let swaps = orientation.swapsDimensions
        let turned = try PixelBuffer(width: swaps ? buffer.height : buffer.width, height: swaps ? buffer.width : buffer.height,
                                     pixelFormat: buffer.pixelFormat)
        PixelTransform.turn(buffer, into: turned, by: orientation)
        return turned
    }

    /// What ``PixelTransform`` can turn.
    private static let turnableFormats: Set<PixelFormat> = [.yuv420p, .yuv422p, .gray8, .rgb24, .bgr24, .bgra, .rgba]
}
