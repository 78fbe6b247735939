/// What `VIDIOC_QUERY_EXT_CTRL` says about one control.
struct V4L2ControlInfo: Sendable, Hashable {
    var id: UInt32
    var name: String
    var type: UInt32
    var minimum: Int64
    var maximum: Int64
    var step: UInt64
    var defaultValue: Int64
    var flags: UInt32
}
