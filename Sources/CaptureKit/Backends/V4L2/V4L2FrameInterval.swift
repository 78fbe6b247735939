/// One answer of `VIDIOC_ENUM_FRAMEINTERVALS`.
enum V4L2FrameInterval: Sendable, Hashable {
    /// One exact interval.
    case discrete(V4L2Fraction)
    /// Every interval between two (continuous ranges report a step of 1/1 or equal to min).
    case stepwise(minimum: V4L2Fraction, maximum: V4L2Fraction, step: V4L2Fraction)
}
