/// Where `VIDIOC_QUERYBUF` says a driver buffer is mapped from.
struct V4L2BufferLocation: Sendable, Hashable {
    var index: Int
    var offset: Int
    var length: Int
}
