/// The memory layout of an uncompressed video frame.
///
/// Names follow FFmpeg's `AVPixelFormat`; the V4L2 FourCC is given where one exists.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Packed 4:2:2, Y0 U Y1 V (V4L2 `YUYV`). What most webcams send.
    case yuyv422
    /// Packed 4:2:2, U Y0 V Y1 (V4L2 `UYVY`).
    case uyvy422
    /// Planar Y + interleaved UV, 4:2:0 (V4L2 `NV12`; Core Video's `420v`).
    case nv12
    /// Planar Y + interleaved VU, 4:2:0 (V4L2 `NV21`).
    case nv21
    /// Three planes Y, U, V, 4:2:0 (V4L2 `YU12`, I420).
    case yuv420p
    /// Three planes Y, U, V, 4:2:2.
    case yuv422p
    /// Luma only, 8 bits (V4L2 `GREY`).
    case gray8
    /// Packed R G B, 8 bits each.
    case rgb24
    /// Packed B G R, 8 bits each.
    case bgr24
    /// Packed B G R A, 8 bits each (Core Video's `BGRA`).
    case bgra
    /// Packed R G B A, 8 bits each.
    case rgba

    public var description: String { rawValue }

    /// Whether the format carries luma and chroma (as opposed to RGB).
    public var isYUV: Bool {
        switch self {
        case .yuyv422, .uyvy422, .nv12, .nv21, .yuv420p, .yuv422p, .gray8: return true
        case .rgb24, .bgr24, .bgra, .rgba: return false
        }
    }

    /// How many planes a buffer of this format has.
    public var planeCount: Int { planeLayouts.count }

    /// One plane's geometry relative to the frame: bytes per `horizontalSubsampling` pixels
    /// of a row, and how many frame rows make one plane row.
    package struct PlaneLayout: Sendable {
        package var bytesPerGroup: Int
        package var pixelsPerGroup: Int
        package var verticalSubsampling: Int
    }

    package var planeLayouts: [PlaneLayout] {
        switch self {
        case .yuyv422, .uyvy422: return [PlaneLayout(bytesPerGroup: 4, pixelsPerGroup: 2, verticalSubsampling: 1)]
        case .nv12, .nv21:
            return [PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 1, verticalSubsampling: 1),
                    PlaneLayout(bytesPerGroup: 2, pixelsPerGroup: 2, verticalSubsampling: 2)]
        case .yuv420p:
            return [PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 1, verticalSubsampling: 1),
                    PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 2, verticalSubsampling: 2),
                    PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 2, verticalSubsampling: 2)]
        case .yuv422p:
            return [PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 1, verticalSubsampling: 1),
                    PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 2, verticalSubsampling: 1),
                    PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 2, verticalSubsampling: 1)]
        case .gray8: return [PlaneLayout(bytesPerGroup: 1, pixelsPerGroup: 1, verticalSubsampling: 1)]
        case .rgb24, .bgr24: return [PlaneLayout(bytesPerGroup: 3, pixelsPerGroup: 1, verticalSubsampling: 1)]
        case .bgra, .rgba: return [PlaneLayout(bytesPerGroup: 4, pixelsPerGroup: 1, verticalSubsampling: 1)]
        }
    }

    /// The bytes of one tightly packed row of plane `plane` for a frame `width` pixels wide.
    public func minimumBytesPerRow(plane: Int, width: Int) -> Int {
        let layout = planeLayouts[plane]
        return (width + layout.pixelsPerGroup - 1) / layout.pixelsPerGroup * layout.bytesPerGroup
    }

    /// The rows of plane `plane` for a frame `height` pixels high.
    public func rowCount(plane: Int, height: Int) -> Int {
        let sub = planeLayouts[plane].verticalSubsampling
        return (height + sub - 1) / sub
    }

    /// The bytes of a tightly packed frame (no row padding), as V4L2's `sizeimage` for packed formats.
    public func packedFrameSize(width: Int, height: Int) -> Int {
        (0..<planeCount).reduce(0) { $0 + minimumBytesPerRow(plane: $1, width: width) * rowCount(plane: $1, height: height) }
    }
}
