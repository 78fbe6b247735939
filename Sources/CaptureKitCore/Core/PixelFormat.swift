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
    /// Raw sensor samples behind a Bayer colour filter, 8 bits each, rows B G B G… then
    /// G R G R… (V4L2 `BA81`, `SBGGR8`). See ``isBayer``.
    case bayerBGGR8 = "bayer_bggr8"
    /// Raw Bayer, 8 bits, rows G B… then R G… (V4L2 `GBRG`).
    case bayerGBRG8 = "bayer_gbrg8"
    /// Raw Bayer, 8 bits, rows G R… then B G… (V4L2 `GRBG`).
    case bayerGRBG8 = "bayer_grbg8"
    /// Raw Bayer, 8 bits, rows R G… then G B… (V4L2 `RGGB`).
    case bayerRGGB8 = "bayer_rggb8"
    /// Raw Bayer, 16-bit little-endian samples, rows B G… then G R… (V4L2 `BYR2`, `SBGGR16`).
    case bayerBGGR16 = "bayer_bggr16le"
    /// Raw Bayer, 16 bits, rows G B… then R G… (V4L2 `GB16`).
    case bayerGBRG16 = "bayer_gbrg16le"
    /// Raw Bayer, 16 bits, rows G R… then B G… (V4L2 `GR16`).
    case bayerGRBG16 = "bayer_grbg16le"
    /// Raw Bayer, 16 bits, rows R G… then G B… (V4L2 `RG16`).
    case bayerRGGB16 = "bayer_rggb16le"
    /// Raw Bayer, 10-bit samples in the low bits of 16-bit little-endian words (unpacked), rows
    /// B G… then G R… (V4L2 `BG10`, `SBGGR10`).
    case bayerBGGR10 = "bayer_bggr10le"
    /// Raw Bayer, 10 bits in 16, rows G B… then R G… (V4L2 `GB10`).
    case bayerGBRG10 = "bayer_gbrg10le"
    /// Raw Bayer, 10 bits in 16, rows G R… then B G… (V4L2 `BA10`).
    case bayerGRBG10 = "bayer_grbg10le"
    /// Raw Bayer, 10 bits in 16, rows R G… then G B… (V4L2 `RG10`).
    case bayerRGGB10 = "bayer_rggb10le"
    /// Raw Bayer, 12-bit samples in the low bits of 16-bit little-endian words, rows B G… then
    /// G R… (V4L2 `BG12`, `SBGGR12`).
    case bayerBGGR12 = "bayer_bggr12le"
    /// Raw Bayer, 12 bits in 16, rows G B… then R G… (V4L2 `GB12`).
    case bayerGBRG12 = "bayer_gbrg12le"
    /// Raw Bayer, 12 bits in 16, rows G R… then B G… (V4L2 `BA12`).
    case bayerGRBG12 = "bayer_grbg12le"
    /// Raw Bayer, 12 bits in 16, rows R G… then G B… (V4L2 `RG12`).
    case bayerRGGB12 = "bayer_rggb12le"

    public var description: String { rawValue }

    /// Whether the format carries luma and chroma (as opposed to RGB).
    public var isYUV: Bool {
        switch self {
        case .yuyv422, .uyvy422, .nv12, .nv21, .yuv420p, .yuv422p, .gray8: return true
        default: return false  // RGB and raw Bayer
        }
    }

    /// Whether frames are raw sensor samples behind a Bayer colour filter: one sample per pixel,
    /// of the colour ``bayerPattern`` says. Every output takes them (libswscale demosaics them
    /// into what it needs), and a photo output can keep them as they are in a DNG file
    /// (``CapturePhotoSettings/init(rawPixelFormat:)``).
    public var isBayer: Bool { bayerBitDepth != nil }

    /// The colours of the top-left 2 × 2 pixels of a Bayer frame, row by row (0 red, 1 green,
    /// 2 blue: DNG's `CFAPattern`), or nil for other formats.
    public var bayerPattern: [UInt8]? {
        switch self {
        case .bayerBGGR8, .bayerBGGR10, .bayerBGGR12, .bayerBGGR16: return [2, 1, 1, 0]
        case .bayerGBRG8, .bayerGBRG10, .bayerGBRG12, .bayerGBRG16: return [1, 2, 0, 1]
        case .bayerGRBG8, .bayerGRBG10, .bayerGRBG12, .bayerGRBG16: return [1, 0, 2, 1]
        case .bayerRGGB8, .bayerRGGB10, .bayerRGGB12, .bayerRGGB16: return [0, 1, 1, 2]
        default: return nil
        }
    }

    /// The significant bits of a Bayer frame's samples (8, 10, 12 or 16; all but 8 are stored
    /// in 16-bit words), nil for other formats.
    public var bayerBitDepth: Int? {
        switch self {
        case .bayerBGGR8, .bayerGBRG8, .bayerGRBG8, .bayerRGGB8: return 8
        case .bayerBGGR10, .bayerGBRG10, .bayerGRBG10, .bayerRGGB10: return 10
        case .bayerBGGR12, .bayerGBRG12, .bayerGRBG12, .bayerRGGB12: return 12
        case .bayerBGGR16, .bayerGBRG16, .bayerGRBG16, .bayerRGGB16: return 16
        default: return nil
        }
    }

    /// The 16-bit Bayer format with the same colour filter layout (for 10- and 12-bit samples
    /// moved to the top bits), nil for other formats.
    package var bayer16: PixelFormat? {
        switch bayerPattern {
        case [2, 1, 1, 0]?: return .bayerBGGR16
        case [1, 2, 0, 1]?: return .bayerGBRG16
        case [1, 0, 2, 1]?: return .bayerGRBG16
        case [0, 1, 1, 2]?: return .bayerRGGB16
        default: return nil
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
        default:  // raw Bayer: one sample a pixel, in a byte or a 16-bit word
            return [PlaneLayout(bytesPerGroup: bayerBitDepth == 8 ? 1 : 2, pixelsPerGroup: 1, verticalSubsampling: 1)]
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
