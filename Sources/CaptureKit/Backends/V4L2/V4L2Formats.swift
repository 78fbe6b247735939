/// One answer of `VIDIOC_ENUM_FMT`. Wraps struct v4l2_fmtdesc.
struct V4L2FormatDescription: Sendable, Hashable {
    var fourCC: V4L2FourCC
    var description: String
    var isCompressed: Bool
}

/// One answer of `VIDIOC_ENUM_FRAMESIZES`. Wraps struct v4l2_frmsizeenum.
enum V4L2FrameSize: Sendable, Hashable {
    /// One exact size.
    case discrete(width: Int, height: Int)
    /// Every size on a grid (a continuous range is a grid with steps of one pixel).
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)
}

/// One answer of `VIDIOC_ENUM_FRAMEINTERVALS`. Wraps struct v4l2_frmivalenum.
enum V4L2FrameInterval: Sendable, Hashable {
    /// One exact interval.
    case discrete(V4L2Fraction)
    /// Every interval between two (continuous ranges report a step of 1/1 or equal to min).
    case stepwise(minimum: V4L2Fraction, maximum: V4L2Fraction, step: V4L2Fraction)
}

/// A V4L2 frame interval: `numerator / denominator` seconds between frames. Wraps struct
/// v4l2_fract.
struct V4L2Fraction: Sendable, Hashable {
    var numerator: UInt32
    var denominator: UInt32

    /// The interval as a media time, or nil for a zero or undefined fraction.
    var duration: MediaTime? {
        guard numerator > 0, denominator > 0, denominator <= UInt32(Int32.max) else { return nil }
        return MediaTime(value: Int64(numerator), timescale: Int32(denominator))
    }

    /// The interval of a media time (1/30 s → 1/30).
    init(_ duration: MediaTime) {
        numerator = UInt32(clamping: max(duration.value, 1))
        denominator = UInt32(clamping: max(Int64(duration.timescale), 1))
    }

    init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }
}

/// The frame layout of `VIDIOC_G_FMT` / `VIDIOC_S_FMT`. Wraps struct v4l2_pix_format (or the
/// first plane of struct v4l2_pix_format_mplane).
struct V4L2PixFormat: Sendable, Hashable {
    var fourCC: V4L2FourCC
    var width: Int
    var height: Int
    /// Bytes per row of the first plane (0 when the driver leaves it to the format).
    var bytesPerLine: Int = 0
    /// Bytes of one frame buffer.
    var sizeImage: Int = 0
    /// Memory planes per frame (1 for single-planar nodes and single-buffer formats).
    var planeCount: Int = 1
}
