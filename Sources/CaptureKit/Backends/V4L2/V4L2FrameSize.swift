/// One answer of `VIDIOC_ENUM_FRAMESIZES`.
enum V4L2FrameSize: Sendable, Hashable {
    /// One exact size.
    case discrete(width: Int, height: Int)
    /// Every size on a grid (a continuous range is a grid with steps of one pixel).
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)
}
