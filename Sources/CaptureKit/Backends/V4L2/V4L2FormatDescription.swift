/// One answer of `VIDIOC_ENUM_FMT`.
struct V4L2FormatDescription: Sendable, Hashable {
    var fourCC: V4L2FourCC
    var description: String
    var isCompressed: Bool
}
