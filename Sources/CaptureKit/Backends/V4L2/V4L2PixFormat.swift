/// The frame layout of `VIDIOC_G_FMT` / `VIDIOC_S_FMT` (`v4l2_pix_format`, or the first plane
/// of `v4l2_pix_format_mplane`).
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
